"""`[tool.auditor]` and `--config`: exclusions, ignored changes, per-path ignores, minimum confidence."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.errors import UsageError
from auditor.scan.config import ScanConfig, load_config

PROJECT = {
    "train.py": (
        "import torch\n"
        "t = torch.arange(-4, 4)\n"
        "a = t // 2\n"
        "b = t.clamp(min=0.5)\n"
        "def f(x):\n"
        "    return x.floor_divide(2)\n"
    ),
    "tests/test_windows.py": "import torch\nt = torch.arange(-4, 4)\nc = t // 2\n",
    "legacy/old.py": "import torch\nt = torch.arange(-4, 4)\nd = t // 2\n",
}


def project(root: Path, pyproject: str | None = None) -> Path:
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject, "utf-8")
    return root


def scan(*args: str) -> tuple[int, set]:
    result = CliRunner().invoke(app, ["scan", *args, "--from", "1.11.0", "--to", "1.13.0", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    document = json.loads(result.stdout)
    return result.exit_code, {(f["path"], f["line"], f["change"][6:11]) for f in document["findings"]}


def test_without_settings_everything_is_reported(tmp_path: Path) -> None:
    assert scan(str(project(tmp_path)))[1] == {
        ("train.py", 3, "floor"), ("train.py", 4, "clamp"), ("train.py", 6, "floor"),
        ("tests/test_windows.py", 3, "floor"), ("legacy/old.py", 3, "floor"),
    }


def test_tool_auditor_in_the_projects_pyproject(tmp_path: Path) -> None:
    root = project(tmp_path, """
[project]
name = "demo"

[tool.auditor]
exclude = ["legacy/"]
min-confidence = "medium"

[tool.auditor.per-path-ignores]
"tests/**" = ["torch-floor-divide-rounds-toward-floor"]
""")
    assert scan(str(root))[1] == {("train.py", 3, "floor"), ("train.py", 4, "clamp")}


def test_ignored_change_ids(tmp_path: Path) -> None:
    root = project(tmp_path, '[tool.auditor]\nignore = ["torch-floor-divide-rounds-toward-floor"]\n')
    assert scan(str(root))[1] == {("train.py", 4, "clamp")}


def test_config_option_overrides_the_pyproject(tmp_path: Path) -> None:
    root = project(tmp_path / "p", '[tool.auditor]\nexclude = ["legacy/"]\n')
    standalone = tmp_path / "auditor.toml"
    standalone.write_text('ignore = ["torch-clamp-type-promotion"]\nexclude = ["tests/"]\n', "utf-8")
    _, found = scan(str(root), "--config", str(standalone))
    assert found == {("train.py", 3, "floor"), ("train.py", 6, "floor"), ("legacy/old.py", 3, "floor")}
    other = tmp_path / "other.toml"
    other.write_text('[tool.auditor]\nper-path-ignores = {"*.py" = ["*"]}\n', "utf-8")
    assert scan(str(root), "--config", str(other)) == (0, set())


@pytest.mark.parametrize(("text", "message"), [
    ("[tool.auditor]\nexclud = []\n", "unknown key 'exclud'"),
    ("[tool.auditor]\nmin-confidence = 'certain'\n", "min-confidence must be one of low, medium, high"),
    ("[tool.auditor]\nexclude = 3\n", "exclude must be a list of strings"),
    ("[tool.auditor\n", "invalid TOML"),
])
def test_bad_settings_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text, "utf-8")
    with pytest.raises(UsageError, match=message) as caught:
        load_config(None, tmp_path)
    assert str(caught.value).startswith(str(tmp_path / "pyproject.toml"))
    result = CliRunner().invoke(app, ["scan", str(tmp_path), "--from", "1.11.0", "--to", "1.13.0"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_a_missing_config_file_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["scan", str(project(tmp_path)), "--from", "1.11.0", "--to", "1.13.0",
                                      "--config", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2
    assert "nope.toml: no such configuration file" in result.output


def test_no_pyproject_means_defaults(tmp_path: Path) -> None:
    assert load_config(None, tmp_path) == ScanConfig()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", "utf-8")
    assert load_config(None, tmp_path) == ScanConfig()


def test_compare_takes_the_config_option_too(tmp_path: Path, examples: Path) -> None:
    root = project(tmp_path / "p")
    settings = tmp_path / "auditor.toml"
    settings.write_text('exclude = ["tests/", "legacy/"]\nignore = ["torch-clamp-type-promotion"]\n', "utf-8")
    result = CliRunner().invoke(app, [
        "compare", str(examples / "requirements-old.txt"), str(examples / "requirements-new.txt"),
        "--project", str(root), "--config", str(settings), "--format", "json",
    ])
    assert result.exit_code == 1, result.output
    sites = {(f["path"], f["line"]) for f in json.loads(result.stdout)["findings"]}
    assert sites == {("train.py", 3), ("train.py", 6)}
