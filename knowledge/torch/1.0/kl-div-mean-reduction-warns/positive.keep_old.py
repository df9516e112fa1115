import torch.nn.functional as F
from torch import nn


def distill(student, teacher, T: float):
    a = F.kl_div(F.log_softmax(student / T, 1), F.softmax(teacher / T, 1), reduction='none').mean() * T * T  # expect
    b = F.kl_div(student.log_softmax(1), teacher.softmax(1), reduction='none').mean()  # expect
    crit = nn.KLDivLoss()  # expect
    return a, b, crit
