"""The real-bump benchmark grades environment findings by kind where a bump states them."""

import importlib.util
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "real_bumps" / "run.py"
spec = importlib.util.spec_from_file_location("real_bumps_run", RUN)
assert spec is not None and spec.loader is not None
run = importlib.util.module_from_spec(spec)
sys.modules["real_bumps_run"] = run
spec.loader.exec_module(run)


def finding(kind: str, message: str) -> dict[str, object]:
    return {"kind": kind, "severity": "high", "message": message, "path": "uv.lock", "line": 7}


def test_findings_beyond_the_expected_count_are_extra_and_a_shortfall_is_missed() -> None:
    out = run.Outcome("case", "owner/repo", "a..b")
    reported = [finding("companion-mismatch", "torchvision 0.21.0+xpu with 2.8.0+cpu"),
                finding("companion-mismatch", "torchvision 0.23.0 with 2.9.1+xpu"),
                finding("cuda-major-changed", "torch moves from CUDA 12 to 13")]
    run.grade_environment({"cuda-major-changed": 1, "macos-baseline-raised": 1}, reported, out)
    assert out.environment_graded
    assert out.environment_right == ["cuda-major-changed uv.lock:7: torch moves from CUDA 12 to 13"]
    assert len(out.environment_extra) == 2 and all(e.startswith("companion-mismatch") for e in out.environment_extra)
    assert out.environment_missed == ["macos-baseline-raised: 1 of 1 not reported"]
    totals = run.totals([out])["environment"]
    assert totals == {"graded": 1, "right": 1, "missed": 1, "extra": 2}


def test_a_bump_that_states_nothing_is_not_graded() -> None:
    out = run.Outcome("case", "owner/repo", "a..b")
    run.grade_environment(None, [finding("companion-mismatch", "x")], out)
    assert not out.environment_graded and not out.environment_extra
