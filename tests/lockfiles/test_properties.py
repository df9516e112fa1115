"""Property tests: every reader either parses its input or raises LockfileError, whatever it is
fed: random text, or a real fixture cut, spliced and garbled."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lockfixtures import LOCKS

from auditor.errors import LockfileError
from auditor.lockfiles import FORMATS
from auditor.lockfiles.detect import detect
from auditor.models import Lock

# A real-shaped sample of each format, and the file name it lives under.
SAMPLES = {
    "pip-freeze": "pip-freeze/editable.txt",
    "requirements.txt": "requirements/options.txt",
    "Pipfile.lock": "pipfile/cu118/Pipfile.lock",
    "poetry.lock": "poetry/lock-2.1-groups/poetry.lock",
    "uv.lock": "uv/forks-old/uv.lock",
    "pdm.lock": "pdm/basic/pdm.lock",
    "pylock.toml": "pylock/pylock.toml",
    "conda-lock.yml": "conda/conda-lock/conda-lock.yml",
    "conda-env-export": "conda/export/environment.yml",
    "environment.yml": "conda/environment/environment.yml",
    "conda-list-export": "conda/list-export/conda-list.txt",
    "conda-explicit": "conda/explicit/conda-linux-64.lock",
}
SAMPLES["pyproject.toml"] = None  # type: ignore[assignment]
SAMPLES["setup.py"] = None  # type: ignore[assignment]
SAMPLES["setup.cfg"] = None  # type: ignore[assignment]
SAMPLES["Pipfile"] = None  # type: ignore[assignment]
WRITTEN = {
    "pyproject.toml": '[project]\nname = "app"\ndependencies = ["torch>=2.1", "numpy==1.26.4"]\n',
    "setup.py": ('from setuptools import setup\n\nBASE = ["numpy==1.26.4"]\nextras = {}\n'
                 'extras["gpu"] = ["torch==2.5.1"]\nsetup(install_requires=BASE + ["torch>=2.1"], '
                 'extras_require=extras)\n'),
    "setup.cfg": "[options]\ninstall_requires =\n    torch>=2.1\n    numpy==1.26.4\n"
                 "[options.extras_require]\ngpu = torch==2.5.1\n",
    "Pipfile": ('[[source]]\nurl = "https://download.pytorch.org/whl/cu121"\nname = "pt"\n\n'
                '[packages]\ntorch = {version = "==2.1.2", index = "pt"}\nnumpy = "*"\n'
                'triton = {version = "==2.1.0", sys_platform = "== \'linux\'"}\n\n'
                '[dev-packages]\npytest = ">=7"\n\n[requires]\npython_version = "3.10"\n'),
}
FORMAT_NAMES = [f.name for f in FORMATS]
SETTINGS = settings(
    max_examples=int(__import__("os").environ.get("LOCK_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def sample(name: str) -> tuple[Path, str]:
    relative = SAMPLES[name]
    if relative is None:
        return LOCKS / name, WRITTEN[name]
    return LOCKS / relative, (LOCKS / relative).read_text()


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["cut", "insert", "duplicate", "drop", "truncate", "swap"]))
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            lines = [draw(st.text(max_size=40))]
        elif action == "cut":
            line = lines[at]
            start = draw(st.integers(0, len(line)))
            lines[at] = line[:start] + line[draw(st.integers(start, len(line))) :]
        elif action == "insert":
            junk = draw(
                st.text(alphabet=st.characters(codec="utf-8"), max_size=20)
                | st.sampled_from(
                    [
                        "[[package]]\n",
                        "{",
                        "]",
                        '"',
                        "- ",
                        ": ",
                        "=",
                        "\\\n",
                        "-r x\n",
                        "<<<<<<< HEAD\n",
                        "version = 3\n",
                        "packages = 1\n",
                        "\t",
                    ]
                )
            )
            lines.insert(at, junk)
        elif action == "duplicate":
            lines.insert(at, lines[at])
        elif action == "drop":
            del lines[at]
        elif action == "truncate":
            lines = lines[:at]
        else:
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
    return "".join(lines)


def parses_or_refuses(name: str, path: Path, text: str) -> None:
    fmt = next(f for f in FORMATS if f.name == name)
    try:
        lock = fmt.parse(path, text)
    except LockfileError as error:
        assert error.path is not None and str(error)
        return
    assert isinstance(lock, Lock)


@pytest.mark.parametrize("name", FORMAT_NAMES)
@SETTINGS
@given(data=st.data())
def test_mutated_samples_parse_or_raise_lockfile_error(name: str, data: st.DataObject) -> None:
    path, text = sample(name)
    parses_or_refuses(name, path, data.draw(mutated(text)))


@pytest.mark.parametrize("name", FORMAT_NAMES)
@SETTINGS
@given(text=st.text(max_size=300))
def test_random_text_parses_or_raises_lockfile_error(name: str, text: str) -> None:
    path, _ = sample(name)
    parses_or_refuses(name, path, text)


@SETTINGS
@given(
    text=st.text(max_size=300),
    name=st.sampled_from(["uv.lock", "poetry.lock", "Pipfile.lock", "lock.txt", "x.yml"]),
)
def test_detection_finds_a_format_or_raises_lockfile_error(text: str, name: str) -> None:
    try:
        detect(LOCKS / name, text)
    except LockfileError:
        pass


DEEP = {
    "uv.lock": "version = 1\na = " + "[" * 100_000,
    "poetry.lock": "a = " + "{b=" * 100_000,
    "Pipfile.lock": "[" * 100_000,
    "conda-lock.yml": "package: " + "[" * 100_000,
    "environment.yml": "dependencies:\n" + "- " * 30_000 + "x",
    "conda-env-export": "a:\n" + "".join(" " * i + "b:\n" for i in range(1, 5_000)),
}


@pytest.mark.parametrize(("name", "text"), DEEP.items())
def test_deep_nesting_is_refused_not_a_crash(name: str, text: str) -> None:
    # libyaml would overflow the C stack here and kill the interpreter: this test fails by crashing
    path, _ = sample(name)
    fmt = next(f for f in FORMATS if f.name == name)
    with pytest.raises(LockfileError, match="nested too deeply"):
        fmt.parse(path, text)
