"""auditor: what a PyTorch dependency bump changes for your code."""

__version__ = "0.1.0"  # the one place it is written: pyproject.toml reads it from here (hatch)

__all__ = ["__version__"]
