import torch


def spectrogram(wave: torch.Tensor, n_fft: int = 512):
    a = torch.view_as_real(torch.stft(wave, n_fft, return_complex=True))  # expect
    b = torch.view_as_real(wave.stft(n_fft, window=torch.hann_window(n_fft), return_complex=True))  # expect
    return a, b
