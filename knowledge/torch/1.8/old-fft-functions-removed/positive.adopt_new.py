import torch


def spectra(x: torch.Tensor):
    a = (lambda input, signal_ndim, normalized=False, onesided=True: torch.view_as_real((torch.fft.rfftn if onesided else torch.fft.fftn)(input, dim=tuple(range(-signal_ndim, 0)), norm='ortho' if normalized else 'backward')))(x, 1, onesided=True)  # expect
    b = (lambda input, signal_ndim, normalized=False, signal_sizes=None: torch.fft.irfftn(torch.view_as_complex(input), s=signal_sizes, dim=tuple(range(-signal_ndim, 0)), norm='ortho' if normalized else 'backward'))(a, 1, signal_sizes=x.shape[-1:])  # expect
    c = (lambda input, signal_ndim, normalized=False: torch.view_as_real(torch.fft.fftn(torch.view_as_complex(input), dim=tuple(range(-signal_ndim, 0)), norm='ortho' if normalized else 'backward')))(x, 2)  # expect
    d = (lambda input, signal_ndim, normalized=False: torch.view_as_real(torch.fft.ifftn(torch.view_as_complex(input), dim=tuple(range(-signal_ndim, 0)), norm='ortho' if normalized else 'backward')))(c, 2)  # expect
    return a, b, c, d
