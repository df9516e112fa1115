"""How probe environments are provisioned: the options `probe`, `compare --probe`, `scan --probe`
and `fix --probe` share, and the probe settings they make."""

from __future__ import annotations

import inspect
from enum import Enum
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from auditor.cli.common import F
from auditor.errors import UsageError
from auditor.requests import Probing
from auditor.settings import Provisioning, probe_settings, progress_reporter

if TYPE_CHECKING:
    from auditor.probe import ProbeSettings


class Installer(str, Enum):
    auto = "auto"
    uv = "uv"
    pip = "pip"


# How probe environments are provisioned and probes run: declared once, on `probe` and on
# `compare --probe` / `scan --probe` alike (name: annotation with the option, default).
PROBE_OPTIONS: dict[str, tuple[Any, Any]] = {
    "python_old": (
        Annotated[
            str | None,
            typer.Option(
                help="Interpreter (path or version such as 3.10) for the old side.",
                rich_help_panel="Probes",
            ),
        ],
        None,
    ),
    "python_new": (
        Annotated[
            str | None,
            typer.Option(
                help="Interpreter (path or version) for the new side.", rich_help_panel="Probes"
            ),
        ],
        None,
    ),
    "env_old": (
        Annotated[
            str | None,
            typer.Option(
                help="Use this existing environment (directory or interpreter) for the old side.",
                rich_help_panel="Probes",
            ),
        ],
        None,
    ),
    "env_new": (
        Annotated[
            str | None,
            typer.Option(
                help="Use this existing environment for the new side.", rich_help_panel="Probes"
            ),
        ],
        None,
    ),
    "index_url": (
        Annotated[
            str | None,
            typer.Option(
                help="Package index to use instead of pip's configured one (--harvest reads wheels from it too).",
                rich_help_panel="Probes",
            ),
        ],
        None,
    ),
    "extra_index_url": (
        Annotated[
            list[str] | None,
            typer.Option(help="Another package index (repeatable).", rich_help_panel="Probes"),
        ],
        None,
    ),
    "find_links": (
        Annotated[
            list[str] | None,
            typer.Option(help="A folder or page of wheels (repeatable).", rich_help_panel="Probes"),
        ],
        None,
    ),
    "torch_index": (
        Annotated[
            str | None,
            typer.Option(
                help="Index of CPU torch builds consulted first ('' for none; default https://download.pytorch.org/whl/cpu).",
                rich_help_panel="Probes",
            ),
        ],
        None,
    ),
    "offline": (
        Annotated[
            bool,
            typer.Option(
                help="Install only from caches and find-links folders.", rich_help_panel="Probes"
            ),
        ],
        False,
    ),
    "no_pip_config": (
        Annotated[
            bool,
            typer.Option(
                "--no-pip-config", help="Ignore pip's configuration.", rich_help_panel="Probes"
            ),
        ],
        False,
    ),
    "allow_cuda": (
        Annotated[
            bool,
            typer.Option(
                help="Accept CUDA builds of torch (nvidia-* wheels, several GB).",
                rich_help_panel="Probes",
            ),
        ],
        False,
    ),
    "installer": (
        Annotated[
            Installer, typer.Option(help="What builds the environments.", rich_help_panel="Probes")
        ],
        Installer.auto,
    ),
    "timeout": (
        Annotated[
            float,
            typer.Option(
                min=0.1, help="Seconds a batch of probes may take.", rich_help_panel="Probes"
            ),
        ],
        900,
    ),
    "probe_timeout": (
        Annotated[
            float,
            typer.Option(min=0.1, help="Seconds one probe may take.", rich_help_panel="Probes"),
        ],
        120,
    ),
    "memory_limit": (
        Annotated[
            float | None,
            typer.Option(
                min=0,
                show_default=False,
                rich_help_panel="Probes",
                help="MiB of address space a probe interpreter may use (0: no limit). Default: 4096, and 8192 for "
                "a CUDA build of torch, whose import maps about 4.7 GiB.",
            ),
        ],
        None,
    ),
}
Provision = dict[str, Any]


def probe_options(command: F) -> F:
    """Adds PROBE_OPTIONS to `command`'s options; the command gets their values as one
    `provision` dict (its own `provision` parameter is not an option)."""
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "provision"]
    added = [
        inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
        )
        for name, (annotation, default) in PROBE_OPTIONS.items()
    ]

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        provision = {
            name: kwargs.pop(name, default) for name, (_, default) in PROBE_OPTIONS.items()
        }
        return command(*args, provision=provision, **kwargs)

    parameters = [*kept, *added]
    wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    return wrapper  # type: ignore[return-value]


def probe_settings_for(
    provision: Provision,
    cache_dir: Path | None,
    no_cache: bool,
    probe: bool,
    harvest: bool = False,
    dependencies: bool = False,
) -> ProbeSettings | None:
    """The probe settings the options ask for; without --probe, a provisioning option given is a
    mistake to say, not to ignore (but --index-url, which --harvest and the dependency audit read too)."""
    if not probe:
        given = [
            name
            for name, (_, default) in PROBE_OPTIONS.items()
            if provision.get(name, default) != default
            and not ((harvest or dependencies) and name == "index_url")
        ]
        if given:
            names = ", ".join("--" + name.replace("_", "-") for name in given)
            also = " or --harvest" if given == ["index_url"] else ""
            raise UsageError(f"{names}: only used with --probe{also}")
        return None
    return provisioned(provision, cache_dir, no_cache)


def provisioned(provision: Provision, cache_dir: Path | None, no_cache: bool) -> ProbeSettings:
    """The probe settings of the provisioning options given."""
    values = {name: provision.get(name, default) for name, (_, default) in PROBE_OPTIONS.items()}
    values["installer"] = Installer(values["installer"]).value
    values["extra_index_url"] = tuple(values["extra_index_url"] or ())
    values["find_links"] = tuple(values["find_links"] or ())
    return probe_settings(Provisioning(**values), cache_dir, no_cache)


def probing(settings: ProbeSettings | None) -> Probing | None:
    """`--probe`'s settings with the progress of its steps on stderr; None without --probe."""
    return None if settings is None else Probing(settings, progress_reporter())
