import torch
from torch.cuda.amp import GradScaler


scaler = torch.amp.GradScaler('cuda')  # expect
other = torch.amp.GradScaler('cuda', init_scale=2.0**10)  # expect
cpu_scaler = torch.amp.GradScaler('cpu', enabled=False)  # expect
