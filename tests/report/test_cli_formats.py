"""compare and scan write every report format; --fail-on decides the exit code."""

import json

import pytest
from typer.testing import CliRunner

from auditor.cli import app


@pytest.fixture
def compare(examples):
    def run(*args: str):
        result = CliRunner().invoke(app, [
            "compare", str(examples / "requirements-old.txt"), str(examples / "requirements-new.txt"),
            "--project", str(examples / "project"), *args,
        ])
        assert "Traceback" not in result.output
        return result

    return run


def test_markdown(compare):
    result = compare("--format", "markdown")
    assert result.exit_code == 1
    assert result.output.startswith("## auditor")
    assert "call sites in 4 files affected" in result.output


def test_sarif(compare):
    result = compare("-f", "sarif")
    assert result.exit_code == 1
    assert json.loads(result.output)["version"] == "2.1.0"


def test_github(compare):
    result = compare("-f", "github")
    assert result.exit_code == 1
    assert all(line.startswith("::") for line in result.output.splitlines())


def test_output_file(compare, tmp_path):
    out = tmp_path / "report.md"
    result = compare("-f", "markdown", "-o", str(out))
    assert result.output == "" and out.read_text("utf-8").startswith("## auditor")


@pytest.mark.parametrize(("fail_on", "code"), [("none", 0), ("low", 1), ("high", 1)])
def test_fail_on(compare, fail_on, code):
    assert compare("-f", "markdown", "--fail-on", fail_on).exit_code == code


def test_scan_formats(examples):
    result = CliRunner().invoke(app, ["scan", str(examples / "project"), "--from", "1.12.1", "--to", "1.13.0",
                                      "-f", "sarif"])
    assert result.exit_code == 1
    assert json.loads(result.output)["runs"][0]["results"]


def test_unknown_format_is_usage_error(compare):
    assert compare("-f", "html").exit_code == 2


def test_markdown_links_inside_actions(compare, monkeypatch, examples):
    monkeypatch.chdir(examples.parent)
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/ml")
    monkeypatch.setenv("GITHUB_SHA", "f" * 40)
    result = compare("-f", "markdown")
    assert f"](https://github.com/octo/ml/blob/{'f' * 40}/examples/project/data/windows.py#L14)" in result.output


def test_markdown_without_actions_has_no_links(compare, monkeypatch):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    assert "/blob/" not in compare("-f", "markdown").output


def test_text_keeps_multi_line_fixes_under_their_label(tmp_path, kb):
    """keep old / adopt new of several lines: every later line starts under the first."""
    entry = kb.get("numpy-can-cast-python-scalars-raises")
    assert "\n" in entry.docs.keep_old  # the case this test is about
    (tmp_path / "cast.py").write_text("import numpy as np\nnp.can_cast(3, np.uint8)\n", "utf-8")
    result = CliRunner().invoke(app, ["scan", str(tmp_path), "--package", "numpy", "--from", "1.26.0",
                                      "--to", "2.0.0", "--no-cache"])
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("       keep old:  "))
    expected = ["       keep old:  " + entry.docs.keep_old.splitlines()[0]]
    expected += [" " * 18 + line for line in entry.docs.keep_old.splitlines()[1:]]
    assert lines[first:first + len(expected)] == expected
    assert lines[first + len(expected)].startswith("       adopt new: ")


def test_unpinned_is_reported_as_unpinned_in_every_format(tmp_path) -> None:
    from typer.testing import CliRunner

    from auditor.cli import app

    for side, text in (("old", "torch==2.3.1\ntorchvision==0.18.1\n"), ("new", "torch==2.3.1\ntorchvision\n")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "requirements.txt").write_text(text)
    locks = [str(tmp_path / side / "requirements.txt") for side in ("old", "new")]
    runner = CliRunner()
    text = runner.invoke(app, ["compare", *locks]).output
    assert "torchvision 0.18.1 -> unpinned (unpinned)" in text and "removed" not in text
    document = json.loads(runner.invoke(app, ["compare", *locks, "-f", "json"]).output)
    assert document["transitions"] == [
        {"package": "torchvision", "from": "0.18.1", "to": None, "direction": "unpinned", "environment": None, "variant": None}
    ]
    assert "torchvision 0.18.1 → unpinned" in runner.invoke(app, ["compare", *locks, "-f", "markdown"]).output
    diff = runner.invoke(app, ["lock", "diff", *locks]).output
    assert "torchvision: 0.18.1 -> unpinned (unpinned)" in diff


def test_text_points_at_the_fix_command_that_shows_the_rewrite(compare, examples, tmp_path):
    """The text report names the changes with a mechanical fix and the `auditor fix ... --diff`
    for this project; run as printed, that command shows a rewrite of the same call sites."""
    import shlex

    result = compare()
    lines = result.output.splitlines()
    assert any(line.startswith("       fix:       `auditor fix` rewrites these call sites (keep-old") for line in lines)
    at = next(i for i, line in enumerate(lines) if "have a mechanical fix" in line)
    command = shlex.split(lines[at + 1].strip())
    assert command[:2] == ["auditor", "fix"] and command[-2:] == ["--keep-old", "--diff"]
    shown = CliRunner().invoke(app, command[1:])
    assert shown.exit_code in (0, 1), shown.output
    assert "+++ b/data/windows.py" in shown.output and "rounding_mode" in shown.output


def test_text_without_fixable_changes_has_no_fix_pointer(tmp_path):
    (tmp_path / "m.py").write_text("import torch\ntorch.set_default_tensor_type(torch.FloatTensor)\n", "utf-8")
    result = CliRunner().invoke(app, ["scan", str(tmp_path), "--from", "2.0.0", "--to", "2.1.0", "--no-cache"])
    assert "set_default_tensor_type" in result.output
    assert "mechanical fix" not in result.output and "fix:       " not in result.output


def test_text_fix_line_names_the_confidence_its_sites_need(tmp_path):
    """`auditor fix` rewrites high-confidence sites by default: a change whose sites are all
    medium says which --min-confidence reaches them."""
    (tmp_path / "m.py").write_text("import torch\nstate = torch.load(path)\n", "utf-8")
    result = CliRunner().invoke(app, ["scan", str(tmp_path), "--from", "2.5.1", "--to", "2.6.0", "--no-cache"])
    assert "torch.load  (medium confidence)" in result.output
    assert "fix:       `auditor fix --min-confidence medium` rewrites these call sites (keep-old)" in result.output
