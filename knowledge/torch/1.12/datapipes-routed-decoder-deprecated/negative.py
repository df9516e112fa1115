from torch.utils.data.datapipes.iter import FileOpener, Mapper


def pipe(paths, decode):
    files = FileOpener(paths, mode="b")
    return Mapper(files, decode)
