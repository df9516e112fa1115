"""The CLI through typer's runner: the contract's commands, formats and exit codes."""

import json
from pathlib import Path

from typer.testing import CliRunner

from auditor.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_compare_example_reports_the_torch_transition_and_its_call_sites(examples: Path) -> None:
    result = run("compare", examples / "requirements-old.txt", examples / "requirements-new.txt",
                 "--project", examples / "project", "--format", "json")
    assert result.exit_code == 1, result.output
    document = json.loads(result.stdout)
    assert document["schema_version"] == "1"
    assert document["tool"]["name"] == "auditor"
    assert document["transitions"][0] == {"package": "torch", "from": "1.12.1+cu116", "to": "1.13.0+cu117",
                                          "direction": "upgrade", "environment": None, "variant": None}
    assert {t["package"] for t in document["transitions"]} <= {"torch", "torchvision", "numpy"}
    assert {
        "torch-floor-divide-rounds-toward-floor",
        "torch-tensor-data-int-on-requires-grad-raises",
        "torch-tensor-int-overflow-raises",
    } <= {c["id"] for c in document["changes"]}
    assert "torch-clamp-type-promotion" not in {c["id"] for c in document["changes"]}
    sites = {(f["path"], f["cell"], f["line"], f["symbol"]) for f in document["findings"]}
    assert ("data/windows.py", None, 15, "torch.floor_divide") in sites
    assert ("explore.ipynb", 3, 2, "torch.Tensor.__floordiv__") in sites
    assert ("quantize.py", None, 9, "torch.tensor") in sites
    assert all(f["path"] != "data/windows.py" or f["line"] != 7 for f in document["findings"])
    assert document["skipped"] == []


def test_json_output_is_byte_stable(examples: Path) -> None:
    args = ("scan", examples / "project", "--from", "1.11.0", "--to", "1.13.0", "--format", "json")
    assert run(*args).stdout == run(*args).stdout


def test_scan_matches_compare_for_the_same_transition(examples: Path) -> None:
    scanned = json.loads(run("scan", examples / "project", "--from", "1.12.1", "--to", "1.13.0", "-f", "json").stdout)
    compared = json.loads(run("compare", examples / "requirements-old.txt", examples / "requirements-new.txt",
                              "--project", examples / "project", "-f", "json").stdout)
    assert scanned["findings"] == compared["findings"]


def test_text_report_names_transition_site_and_fix(examples: Path) -> None:
    result = run("compare", examples / "requirements-old.txt", examples / "requirements-new.txt",
                 "--project", examples / "project")
    assert "torch 1.12.1+cu116 -> 1.13.0+cu117 (upgrade)" in result.stdout
    assert "data/windows.py:15:12" in result.stdout
    assert "rounding_mode='trunc'" in result.stdout


def test_downgrade_says_the_behaviour_reverts(examples: Path) -> None:
    result = run("scan", examples / "project", "--from", "1.13.0", "--to", "1.12.1")
    assert result.exit_code == 1
    assert "torch 1.13.0 -> 1.12.1 (downgrade)" in result.stdout
    assert "reverts" in result.stdout


def test_fail_on_controls_the_exit_code(examples: Path) -> None:
    base = ("scan", examples / "project", "--from", "1.12.1", "--to", "1.13.0")
    assert run(*base, "--fail-on", "none").exit_code == 0
    assert run(*base, "--fail-on", "high").exit_code == 1


def test_no_crossed_change_exits_zero(examples: Path) -> None:
    result = run("scan", examples / "project", "--from", "1.13.0", "--to", "1.13.1", "-f", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["findings"] == []


def test_output_file_is_written_and_stdout_stays_empty(examples: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    result = run("scan", examples / "project", "--from", "1.12.1", "--to", "1.13.0", "-f", "json", "-o", target)
    assert result.stdout == ""
    assert json.loads(target.read_text())["schema_version"] == "1"


def test_malformed_lock_exits_2_with_file_and_line(tmp_path: Path, examples: Path) -> None:
    bad = tmp_path / "requirements.txt"
    bad.write_text("numpy==1.26.0\ntorch==1.12.1\nthis is not == a requirement\n")
    result = run("compare", bad, examples / "requirements-new.txt")
    assert result.exit_code == 2
    assert f"{bad}:3:" in result.stderr
    assert "Traceback" not in result.output


def test_missing_lock_exits_2(tmp_path: Path, examples: Path) -> None:
    result = run("compare", tmp_path / "nope.txt", examples / "requirements-new.txt")
    assert result.exit_code == 2
    assert "nope.txt" in result.stderr


def test_bad_version_and_unknown_package_exit_2(examples: Path) -> None:
    assert run("scan", examples / "project", "--from", "one", "--to", "1.13.0").exit_code == 2
    assert run("scan", examples / "project", "--from", "1.0", "--to", "2.0", "--package", "leftpad").exit_code == 2


def test_kb_list_json_has_the_contract_fields() -> None:
    result = run("kb", "list", "--format", "json")
    assert result.exit_code == 0
    entries = json.loads(result.stdout)["entries"]
    floor = next(e for e in entries if e["id"] == "torch-floor-divide-rounds-toward-floor")
    assert {"id", "package", "introduced", "kind", "severity", "title", "symbols", "references",
            "python", "probe"} <= floor.keys()
    assert floor["probe"] is True
    int8 = next(e for e in entries if e["id"] == "torch-tensor-int-overflow-raises")
    assert int8["python"] == ">=3.10"


def test_kb_list_transition_selects_crossed_entries() -> None:
    result = run("kb", "list", "--from", "1.12.1", "--to", "1.13.0", "-f", "json")
    ids = {e["id"] for e in json.loads(result.stdout)["entries"]}
    assert "torch-floor-divide-rounds-toward-floor" in ids
    assert "torch-clamp-type-promotion" not in ids
    # the generated changes it does not list are counted, on stderr: the listing stays JSON
    from packaging.version import Version

    from auditor.knowledge.base import KnowledgeBase
    from auditor.models import Transition

    generated = KnowledgeBase.load(harvested=True).crossed([Transition("torch", Version("1.12.1"), Version("1.13.0"))])
    count = sum(c.harvested is not None for c in generated)
    assert count > 0
    assert (f"torch 1.12.1 -> 1.13.0 also crosses {count} changes generated from torch's own released source "
            "(not probe-verified) that this list leaves out") in result.stderr


def test_kb_show_renders_docs_and_unknown_id_exits_2() -> None:
    shown = run("kb", "show", "torch-floor-divide-rounds-toward-floor")
    assert shown.exit_code == 0
    assert "## Keep the old behaviour" in shown.stdout
    assert run("kb", "show", "no-such-entry").exit_code == 2


def test_lock_show_json(examples: Path) -> None:
    result = run("lock", "show", examples / "requirements-new.txt", "-f", "json")
    document = json.loads(result.stdout)
    torch = next(p for p in document["packages"] if p["name"] == "torch")
    assert torch["version"] == "1.13.0+cu117"
