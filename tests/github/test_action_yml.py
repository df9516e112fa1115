"""action.yml and .pre-commit-hooks.yaml: parsed, and checked against the CLI they drive."""

import re
from pathlib import Path

import pytest
import typer.main
import yaml

from auditor.cli import app
from auditor.github.action import _outputs
from auditor.models import AuditResult

ROOT = Path(__file__).resolve().parents[2]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@pytest.fixture(scope="module")
def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))


def _github_command():
    return typer.main.get_command(app).commands["github"]  # type: ignore[attr-defined]


def test_composite_action_shape(action):
    assert action["name"] and action["description"]
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert any(str(s.get("uses", "")).startswith("actions/setup-python@") for s in steps)
    run_steps = [s for s in steps if "run" in s]
    assert all(s.get("shell") == "bash" for s in run_steps)
    assert any("github.action_path" in str(s.get("env", {})) and "pip install" in s["run"] for s in run_steps)
    assert any(s.get("id") == "audit" and "-m auditor github" in s["run"] for s in run_steps)


def test_expected_inputs(action):
    inputs = action["inputs"]
    for name in ("lockfiles", "project", "fail-on", "fail-on-confidence", "probe", "comment", "github-token"):
        assert name in inputs, name
        assert inputs[name]["description"]
        assert inputs[name].get("required", False) is False
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert inputs["fail-on"]["default"] in ("none", "low", "medium", "high")
    assert inputs["fail-on-confidence"]["default"] == "medium"


def test_no_expression_is_interpolated_into_a_script(action):
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")


def test_every_input_reaches_the_tool_through_env(action):
    audit = next(s for s in action["runs"]["steps"] if s.get("id") == "audit")
    env = audit["env"]
    used = {m.group(1).removeprefix("inputs.") for v in env.values() for m in EXPRESSION.finditer(str(v))
            if m.group(1).startswith("inputs.")}
    setup_inputs = {"python-version"}  # consumed by setup-python's `with:`
    assert used | setup_inputs == set(action["inputs"])
    # each AUDITOR_* variable is one the `github` command reads
    envvars = {p.envvar for p in _github_command().params if getattr(p, "envvar", None)}
    wanted = {k for k in env if k.startswith("AUDITOR_") and k != "AUDITOR_VENV"}
    assert wanted <= envvars, wanted - envvars
    assert env["GITHUB_TOKEN"] == "${{ inputs.github-token }}"


def test_outputs_are_the_ones_the_tool_writes(action):
    written = set(_outputs(AuditResult((), (), ()), None, []))
    for name, spec in action["outputs"].items():
        assert spec["value"] == f"${{{{ steps.audit.outputs.{name} }}}}"
        assert name in written, name
    assert {"findings", "transitions", "comment-url"} <= set(action["outputs"])


def test_pre_commit_hook():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    hook = next(h for h in hooks if h["id"] == "auditor")
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    assert hook["entry"].split()[:3] == ["auditor", "compare", "--git"]
    files = re.compile(hook["files"])
    for path in ("requirements.txt", "sub/requirements-dev.txt", "poetry.lock", "uv.lock", "pylock.toml",
                 "pylock.gpu.toml", "environment.yml", "conda-lock.yml", "Pipfile.lock"):
        assert files.search(path), path
    for path in ("README.md", "src/model.py", "setup.py"):
        assert not files.search(path), path


def test_docs_show_the_permissions():
    text = (ROOT / "docs" / "github-action.md").read_text("utf-8")
    assert "pull-requests: write" in text and "contents: read" in text
    assert "pull_request_target" in text
