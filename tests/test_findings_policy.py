"""What is a finding, on real scans of tests/fixtures/findings with the shipped knowledge:
the hazard direction of each kind, good news, staged entries merged, one call-site count for
every format, and low confidence set apart in the report and the exit code."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app

runner = CliRunner()
PROJECT = Path(__file__).resolve().parent / "fixtures" / "findings"
# the lines of bump.py
LOAD, EXPORT, ENCODER, AUTOCAST, SIGMOID, DTENSOR, COMPILE, LAST, LOADER, DIV = 7, 8, 9, 10, 11, 12, 13, 14, 18, 21


def scan(old: str, new: str, *options: str, fmt: str = "json"):
    return runner.invoke(app, ["scan", str(PROJECT), "--from", old, "--to", new, "--no-cache", "--format", fmt, *options])


def document(old: str, new: str, *options: str) -> dict:
    result = scan(old, new, *options)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def found(doc: dict) -> dict[str, list[int]]:
    lines: dict[str, list[int]] = {}
    for f in doc["findings"]:
        lines.setdefault(f["change"], []).append(f["line"])
    return lines


def news(doc: dict) -> dict[str, list[int]]:
    return {g["change"]: [s["line"] for s in g["sites"]] for g in doc["good_news"]}


# (kind, entry, its line, upgrade, downgrade): the entry gives a finding on the way it hurts only
CASES = [
    ("behaviour", "torch-floor-divide-rounds-toward-floor", LAST, ("1.12.1", "1.13.0"), True, True),
    ("default-changed", "torch-load-weights-only-default-true", LOAD, ("2.5.1", "2.6.0"), True, True),
    ("removed", "torch-symeig-removed", LAST, ("1.13.1", "2.0.0"), True, False),
    ("now-raises", "torch-dataloader-prefetch-factor-requires-workers", LOADER, ("1.13.1", "2.0.0"), True, False),
    ("added", "torch-compile-added", COMPILE, ("1.13.1", "2.0.0"), False, True),
    ("made-public", "torch-distributed-tensor-public", DTENSOR, ("2.4.1", "2.5.0"), False, True),
    ("undeprecated", "torch-functional-sigmoid-tanh-undeprecated", SIGMOID, ("1.13.1", "2.0.0"), False, True),
    ("deprecated", "torch-cuda-amp-autocast-deprecated", AUTOCAST, ("2.3.1", "2.4.0"), True, False),
    ("warns, hazard stated", "torch-transformer-encoder-nested-tensor-warns", ENCODER, ("2.0.1", "2.1.0"), True, False),
]


@pytest.mark.parametrize(("kind", "change", "line", "versions", "up", "down"), CASES, ids=[c[0] for c in CASES])
def test_each_kind_hurts_only_in_its_direction(kind, change, line, versions, up, down) -> None:
    old, new = versions
    upgrade, downgrade = document(old, new), document(new, old)
    assert (found(upgrade).get(change) == [line]) is up
    assert (found(downgrade).get(change) == [line]) is down
    assert change not in found(upgrade) or up
    assert change not in found(downgrade) or down
    if kind in ("made-public", "undeprecated"):  # their harmless way is good news, with the site
        assert news(upgrade) == {change: [line]}
    assert change not in news(downgrade)


def test_a_warning_that_ends_on_upgrade_is_no_finding_and_its_successor_states_the_move() -> None:
    """Issue 13 item 6: 2.5 -> 2.6 gave each torch.load line the 2.6 default change and the
    2.4 warning "reverting"; the warning's end is folded into the change that ends it."""
    up = document("2.5.1", "2.6.0")
    assert found(up) == {"torch-load-weights-only-default-true": [LOAD]}
    assert news(up) == {}
    down = document("2.6.0", "2.4.1")  # both stages hurt on the way back: one finding for both
    load = [f for f in down["findings"] if f["line"] == LOAD]
    assert [(f["change"], f["stages"]) for f in load] == [
        ("torch-load-weights-only-default-true", ["torch-load-weights-only-default-warns"])]
    assert "2 stages crossed together: 2.4.0: " in load[0]["message"]


def test_staged_entries_crossed_together_give_one_finding_per_line() -> None:
    doc = document("1.12.1", "2.6.0")
    export = [f for f in doc["findings"] if f["line"] == EXPORT]
    assert [(f["change"], f["stages"]) for f in export] == [("torch-onnx-default-opset-17", ["torch-onnx-default-opset-14"])]
    assert "opset 14" in export[0]["message"] and "opset 17" in export[0]["message"]
    removal = document("1.8.0", "2.0.0")
    symeig = [f for f in removal["findings"] if f["symbol"] == "torch.symeig"]
    assert [(f["change"], f["stages"]) for f in symeig] == [("torch-symeig-removed", ["torch-symeig-deprecated"])]
    text = scan("1.12.1", "2.6.0", fmt="text").stdout
    assert "torch-onnx-default-opset-14" not in text.split("other crossed change")[-1]  # folded, not "unused"


def test_every_format_counts_call_sites_the_same_way() -> None:
    """2.8 -> 2.9: two changes hit one torch.onnx.export call; it is one call site everywhere,
    one finding whose `also` holds the second change with its reason."""
    doc = document("2.8.0", "2.9.0")
    assert len(doc["findings"]) == 1 and doc["counts"]["call_sites"] == 1
    assert [a["change"] for a in doc["findings"][0]["also"]] == ["torch-onnx-default-opset-20"]
    assert "1 call site(s) in 1 file(s)" in scan("2.8.0", "2.9.0", fmt="text").stdout
    markdown = scan("2.8.0", "2.9.0", fmt="markdown").stdout
    assert "**1 call site in 1 file affected**" in markdown and "changes, 1 call site\n" in markdown


def test_low_confidence_stands_apart_in_every_format() -> None:
    """2.0.1 -> 2.1.0: a medium torch.onnx.export finding and a low TransformerEncoder one."""
    text = scan("2.0.1", "2.1.0", fmt="text").stdout
    assert "1 call site(s) in 1 file(s); 1 more at low confidence" in text
    collapsed = text.split("low-confidence call site(s), collapsed")[1]
    assert "torch-transformer-encoder-nested-tensor-warns" in collapsed and ": 1 in bump.py" in collapsed
    assert "bump.py:9:11" not in text  # no per-line row
    markdown = scan("2.0.1", "2.1.0", fmt="markdown").stdout
    low = markdown.split("<details><summary>1 call site at low confidence")[1].split("</details>")[0]
    assert "`torch-transformer-encoder-nested-tensor-warns`" in low and "`bump.py`" in low
    assert "### 🟡 TransformerEncoder" not in markdown
    sarif = json.loads(scan("2.0.1", "2.1.0", fmt="sarif").stdout)
    levels = {r["ruleId"]: r["level"] for r in sarif["runs"][0]["results"]}
    assert levels == {"torch-transformer-encoder-nested-tensor-warns": "note", "torch-onnx-default-opset-17": "warning"}
    counts = document("2.0.1", "2.1.0")["counts"]
    assert (counts["call_sites"], counts["low_confidence_call_sites"], counts["low_confidence_changes"]) == (1, 1, 1)
    annotations = scan("2.0.1", "2.1.0", fmt="github").stdout
    assert "TransformerEncoder" not in annotations and "torch-onnx-default-opset-17" in annotations
    assert "1 call site is at low confidence, not annotated" in annotations


def test_low_confidence_does_not_fail_by_default() -> None:
    low_only = PROJECT.parent / "findings-low"
    args = ["scan", str(low_only), "--from", "2.0.1", "--to", "2.1.0", "--no-cache", "--fail-on", "low"]
    assert runner.invoke(app, args).exit_code == 0
    # the low finding (TransformerEncoder's nested-tensor warning) only warns: it counts with both flags
    assert runner.invoke(app, [*args, "--fail-on-confidence", "low"]).exit_code == 0
    assert runner.invoke(app, [*args, "--fail-on-confidence", "low", "--fail-on-warnings"]).exit_code == 1
    assert runner.invoke(app, [*args, "--fail-on-warnings"]).exit_code == 0
    assert runner.invoke(app, args, env={"AUDITOR_FAIL_ON_CONFIDENCE": "low"}).exit_code == 0  # scan takes no env
    # bump.py adds a medium-confidence finding: it counts by default, not under `high`
    assert scan("2.0.1", "2.1.0", "--fail-on", "low").exit_code == 1
    assert scan("2.0.1", "2.1.0", "--fail-on", "low", "--fail-on-confidence", "high").exit_code == 0


def test_good_news_is_in_every_format_and_never_fails() -> None:
    up = document("2.4.1", "2.5.0", "--fail-on", "low", "--fail-on-confidence", "low")
    assert news(up) == {"torch-distributed-tensor-public": [DTENSOR]}
    assert up["findings"] == []
    assert scan("2.4.1", "2.5.0", "--fail-on", "low", "--fail-on-confidence", "low").exit_code == 0
    assert "Good news" in scan("2.4.1", "2.5.0", fmt="text").stdout
    assert "### Good news" in scan("2.4.1", "2.5.0", fmt="markdown").stdout
    sarif = json.loads(scan("2.4.1", "2.5.0", fmt="sarif").stdout)
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["level"] for n in notes if n["descriptor"]["id"] == "good-news"] == ["note"]
    assert sarif["runs"][0]["results"] == []


def test_stages_merge_across_a_stage_the_transition_does_not_cross() -> None:
    """torch.div on integers: a warning (1.5), an error (1.6 only), true division (1.7).
    1.7 -> 1.5 crosses the first and last stage only; 1.5 -> 1.7 ends the warning, which the
    true division continues: no good news."""
    down = document("1.7.0", "1.5.1")
    div = [(f["change"], f["stages"]) for f in down["findings"] if f["line"] == DIV]
    assert div == [("torch-div-true-division", ["torch-div-integer-division-deprecated"])]
    up = document("1.5.1", "1.7.0")
    assert [(f["change"], f["stages"]) for f in up["findings"] if f["line"] == DIV] == [("torch-div-true-division", [])]
    assert "torch-div-integer-division-deprecated" not in news(up)


def test_good_news_the_code_does_not_use_is_one_line() -> None:
    args = ["scan", str(PROJECT.parent / "findings-low"), "--from", "2.4.1", "--to", "2.5.0", "--no-cache"]
    text = runner.invoke(app, args).stdout
    assert "Good news" not in text
    assert "1 crossed change(s) only help code that uses them, none here: torch-distributed-tensor-public" in text
    markdown = runner.invoke(app, [*args, "--format", "markdown"]).stdout
    assert "### Good news" not in markdown and "`torch-distributed-tensor-public`" in markdown


def test_a_change_is_placed_by_severity_then_by_the_confidence_of_its_sites() -> None:
    """1.12.1 -> 2.15.0: two HIGH changes, torch.load (2.6, medium-confidence site) and the ONNX
    dynamo default (2.9, a high-confidence site): the confident one comes first, although
    later, in text and Markdown; a low severity with high confidence stays after both."""
    text = scan("1.12.1", "2.15.0", fmt="text").stdout
    dynamo, load, autocast = (text.index(t) for t in ("torch-onnx-export-dynamo-default ·", "torch-load-weights-only-default-true ·", "(torch-cuda-amp-autocast-deprecated, warns)"))
    assert dynamo < load < autocast
    markdown = scan("1.12.1", "2.15.0", fmt="markdown").stdout
    assert markdown.index("### 🔴 torch.onnx.export uses the torch.export-based exporter") < markdown.index("### 🔴 torch.load defaults")


def test_compare_counts_low_confidence_only_when_asked(tmp_path: Path) -> None:
    """The exit code of `compare` (two locks) follows --fail-on-confidence like `scan`."""
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("torch==2.0.1\n")
    new.write_text("torch==2.1.0\n")
    args = ["compare", str(old), str(new), "--project", str(PROJECT.parent / "findings-low"), "--no-cache", "--fail-on", "low"]
    assert runner.invoke(app, args).exit_code == 0
    assert runner.invoke(app, [*args, "--fail-on-confidence", "low", "--fail-on-warnings"]).exit_code == 1
    # bump.py's medium-confidence finding counts by default, not under `high`
    confident = ["compare", str(old), str(new), "--project", str(PROJECT), "--no-cache", "--fail-on", "low"]
    assert runner.invoke(app, confident).exit_code == 1
    assert runner.invoke(app, [*confident, "--fail-on-confidence", "high"]).exit_code == 0
