"""auditor: what a PyTorch dependency bump changes for your code."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lockfile-auditor")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
