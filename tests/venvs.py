"""Virtual environments made by tests that must see the packages of the environment running them."""

from __future__ import annotations

import site
from pathlib import Path


def sees_this_environment(env: Path) -> None:
    """Make the packages of the running environment (torch, the tool's dependencies) importable
    in the virtual environment at `env`, after its own: `system_site_packages` alone shows the base
    interpreter's, which on a fresh machine has none of them (CI installs into a venv)."""
    own = next(env.glob("lib/python*/site-packages"))
    (own / "_running_environment.pth").write_text("".join(f"{path}\n" for path in site.getsitepackages()), "utf-8")
