import torch


def table():
    a = torch.tensor(300).to(torch.int8)  # expect
    b = torch.tensor([0, 200, 255]).to(torch.int8)  # expect
    c = torch.as_tensor(-129).to(torch.int8)  # expect
    d = torch.tensor([70000]).to(torch.int16)  # expect
    e = torch.tensor(256).to(torch.uint8)  # expect
    return a, b, c, d, e
