from torch.utils.data.datapipes.iter import FileOpener, RoutedDecoder


def pipe(paths):
    files = FileOpener(paths, mode="b")
    return RoutedDecoder(files)  # expect
