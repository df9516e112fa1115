"""setup.py and setup.cfg read as declarations: what they write is read, what they compute is
named as not read, and nothing is ever run."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles.detect import read_lock

SETUP_PY = '''import os
from setuptools import find_packages, setup

BASE = ["numpy>=1.24", "torch==2.4.0"]  # the runtime
extras = {}
extras["vision"] = ["torchvision>=0.19,<0.21"]
extras["all"] = {dep for deps in extras.values() for dep in deps}

setup(
    name="p",
    packages=find_packages(),
    install_requires=BASE + ["tqdm"],
    extras_require={
        **extras,
        "audio:sys_platform == 'linux'": ["torchaudio==2.4.0"],
    },
)
'''


def write(tmp_path: Path, name: str, text: str) -> Path:
    target = tmp_path / name
    target.write_text(text, "utf-8")
    return target


def pins(lock) -> dict[str, tuple[str | None, str | None, str | None, int | None]]:
    return {p.name: (str(p.version) if p.version else p.specifier, p.marker, p.groups[0], p.line) for p in lock.pins}


def test_a_setup_py_is_read_without_running_it(tmp_path: Path) -> None:
    extras = SETUP_PY.replace("        **extras,\n", "")  # `**` in a dict literal is computed
    lock = read_lock(write(tmp_path, "setup.py", extras.replace("import os", "raise SystemExit('never run')")))
    assert lock.format == "setup.py"
    assert pins(lock) == {
        "numpy": (">=1.24", None, "main", 4), "torch": ("2.4.0", None, "main", 4), "tqdm": (None, None, "main", 12),
        "torchaudio": ("2.4.0", 'sys_platform == "linux" and extra == "audio"', "audio", 14),
    }


def test_an_extras_dict_filled_key_by_key_is_read_and_a_computed_extra_named(tmp_path: Path) -> None:
    text = SETUP_PY.replace("extras_require={\n        **extras,\n        \"audio:sys_platform == 'linux'\": "
                            "[\"torchaudio==2.4.0\"],\n    },", "extras_require=extras,")
    lock = read_lock(write(tmp_path, "setup.py", text))
    assert pins(lock)["torchvision"] == ("<0.21,>=0.19", 'extra == "vision"', "vision", 6)
    assert lock.notes == ("line 7: extra 'all' is computed when setup.py runs, not read",)


@pytest.mark.parametrize(("text", "line", "said"), [
    ('from setuptools import setup\nsetup(install_requires=open("r.txt").read().split())\n', 2, "computed"),
    ("from setuptools import setup\nsetup(**options)\n", 2, "setup(**...)"),
    ("from setuptools import setup\nsetup(install_requires=[\n", 2, "not Python"),
    ('REQS = ["torch"]\nREQS.append("numpy")\nsetup(install_requires=REQS)\n', 3, "computed"),
])
def test_computed_requirements_are_an_error_naming_the_line(tmp_path: Path, text: str, line: int, said: str) -> None:
    with pytest.raises(LockfileError) as caught:
        read_lock(write(tmp_path, "setup.py", text))
    assert caught.value.line == line and said in caught.value.message


SETUP_CFG = """[metadata]
name = p

[options]
packages = find:
install_requires =
    numpy>=1.24
    torch==2.4.0  # the runtime

[options.extras_require]
vision = torchvision==0.19.0
audio =
    torchaudio==2.4.0; sys_platform == 'linux'
"""


def test_a_setup_cfg_is_read(tmp_path: Path) -> None:
    lock = read_lock(write(tmp_path, "setup.cfg", SETUP_CFG))
    assert lock.format == "setup.cfg" and lock.pins[1].version == Version("2.4.0")
    assert pins(lock) == {
        "numpy": (">=1.24", None, "main", 7), "torch": ("2.4.0", None, "main", 8),
        "torchvision": ("0.19.0", 'extra == "vision"', "vision", 11),
        "torchaudio": ("2.4.0", 'sys_platform == "linux" and extra == "audio"', "audio", 13),
    }


def test_a_setup_cfg_file_directive_is_an_error_naming_the_line(tmp_path: Path) -> None:
    text = "[options]\ninstall_requires = file: requirements.txt\n"
    with pytest.raises(LockfileError) as caught:
        read_lock(write(tmp_path, "setup.cfg", text))
    assert caught.value.line == 2 and "another file" in caught.value.message
