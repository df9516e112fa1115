import torch.utils.model_dump


def report(path, cli):
    info = torch.utils.model_dump.get_model_info(path)
    cli.main(["model_dump", path])
    return info
