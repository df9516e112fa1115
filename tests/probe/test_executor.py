"""The cross-version path on real numpy 1.26.0 and 2.0.0 environments, and torch probes."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from auditor.errors import UsageError
from auditor.knowledge.base import KnowledgeBase
from auditor.models import ProbeOutcome, Transition
from auditor.probe import ProbeSettings, probe_transitions

pytestmark = pytest.mark.slow

NUMPY = Transition("numpy", Version("1.26.0"), Version("2.0.0"))


def by_change(outcomes: tuple[ProbeOutcome, ...]) -> dict[str, ProbeOutcome]:
    return {o.change.removeprefix("numpy-"): o for o in outcomes}


@pytest.fixture(scope="module")
def numpy_outcomes(numpy_kb: KnowledgeBase, settings: ProbeSettings) -> dict[str, ProbeOutcome]:
    return by_change(probe_transitions([NUMPY], numpy_kb.entries, settings))


def test_real_changes_are_confirmed_on_both_versions(numpy_outcomes: dict[str, ProbeOutcome]) -> None:
    promotion = numpy_outcomes["scalar-promotion"]
    assert promotion.status == "confirmed", promotion
    assert (promotion.old.version, promotion.old.output) == ("1.26.0", "float64")  # type: ignore[union-attr]
    assert (promotion.new.version, promotion.new.output) == ("2.0.0", "float32")  # type: ignore[union-attr]
    assert promotion.old.python == "{}.{}.{}".format(*sys.version_info[:3])  # type: ignore[union-attr]
    assert numpy_outcomes["float-alias-removed"].status == "confirmed"


def test_a_wrong_claim_is_not_reproduced_with_both_outputs(numpy_outcomes: dict[str, ProbeOutcome]) -> None:
    wrong = numpy_outcomes["wrong-claim"]
    assert wrong.status == "not-reproduced"
    assert wrong.old.output == wrong.new.output == "3"  # type: ignore[union-attr]
    assert wrong.reason == "2.0.0 was expected to show '4'"


def test_skips_say_why(numpy_outcomes: dict[str, ProbeOutcome]) -> None:
    assert numpy_outcomes["needs-gpu"] == ProbeOutcome("numpy-needs-gpu", "skipped", reason="needs a GPU")
    old_pythons = numpy_outcomes["old-pythons-only"]
    assert old_pythons.status == "skipped"
    assert old_pythons.reason is not None and old_pythons.reason.startswith("holds on Python <3.7 only;")
    assert "not-crossed" not in numpy_outcomes  # 1.26.0 -> 2.0.0 does not cross a 2.1.0 entry


def test_a_probe_that_hangs_or_crashes_is_an_error_and_the_others_still_report(
    numpy_outcomes: dict[str, ProbeOutcome],
) -> None:
    hangs, segfaults, aborts = (numpy_outcomes[k] for k in ("hangs", "segfaults", "aborts"))
    assert hangs.status == segfaults.status == aborts.status == "error"
    assert "timed out after 6 s (killed)" in (hangs.reason or "")
    assert "SIGSEGV" in (segfaults.reason or "") and "SIGABRT" in (aborts.reason or "")
    assert numpy_outcomes["scalar-promotion"].status == "confirmed"


def test_results_are_cached_by_probe_version_and_python(
    numpy_kb: KnowledgeBase, settings: ProbeSettings, tmp_path: Path,
) -> None:
    # a probe whose output differs on every run shows whether a result came from the cache
    clock = dataclasses.replace(
        numpy_kb.get("numpy-scalar-promotion"),
        id="numpy-clock",
        probe=dataclasses.replace(numpy_kb.get("numpy-scalar-promotion").probe,  # type: ignore[arg-type]
                                  code="import time\nprint(time.time_ns())"),
    )
    first = probe_transitions([NUMPY], [clock], settings)[0]
    again = probe_transitions([NUMPY], [clock], settings)[0]
    assert first.old is not None and first.new is not None and first.old.output != first.new.output
    assert again == first
    fresh = probe_transitions([NUMPY], [clock], dataclasses.replace(settings, use_cache=False, cache_dir=tmp_path))[0]
    assert fresh.old is not None and fresh.old.output != first.old.output
    assert list(tmp_path.iterdir()) == []  # --no-cache leaves nothing behind


def test_a_version_with_no_wheel_skips_its_entries(numpy_kb: KnowledgeBase, settings: ProbeSettings) -> None:
    transition = Transition("numpy", Version("1.26.0"), Version("2.0.99"))
    outcomes = by_change(probe_transitions([transition], numpy_kb.entries, settings))
    promotion = outcomes["scalar-promotion"]
    assert promotion.status == "skipped"
    assert promotion.reason is not None and promotion.reason.startswith("numpy 2.0.99: cannot install numpy 2.0.99: Python")


def test_an_interpreter_that_does_not_exist_stops_the_run(numpy_kb: KnowledgeBase, settings: ProbeSettings) -> None:
    with pytest.raises(UsageError, match="no such interpreter: /nonexistent/python"):
        probe_transitions([NUMPY], numpy_kb.entries, dataclasses.replace(settings, python_old="/nonexistent/python"))


def test_an_existing_environment_stands_for_a_side(numpy_kb: KnowledgeBase, settings: ProbeSettings) -> None:
    # the running interpreter has numpy 2.x: it can stand for the new side of 1.26.0 -> 2.0.0
    outcomes = by_change(probe_transitions(
        [NUMPY], [numpy_kb.get("numpy-scalar-promotion")], dataclasses.replace(settings, env_new=sys.executable),
    ))
    promotion = outcomes["scalar-promotion"]
    assert promotion.status == "confirmed"
    import numpy

    assert promotion.new is not None and promotion.new.version == numpy.__version__


def test_torch_probes_run_in_the_current_environment_and_an_unprovisionable_side_skips(
    kb: KnowledgeBase, settings: ProbeSettings,
) -> None:
    transition = Transition("torch", Version("1.12.1"), Version("2.13.0"))
    # offline, torch 1.12.1 has no wheel here: every runnable entry is skipped with the reason
    outcomes = probe_transitions([transition], kb.crossed([transition]),
                                 dataclasses.replace(settings, env_new=sys.executable))
    floor = next(o for o in outcomes if o.change == "torch-floor-divide-rounds-toward-floor")
    assert floor.status == "skipped"
    assert floor.reason is not None and floor.reason.startswith("torch 1.12.1: cannot install torch 1.12.1")
    # both sides on the installed 2.13.0: the versions do not cross the change, and it says so
    same = probe_transitions([transition], [kb.get("torch-floor-divide-rounds-toward-floor")],
                             dataclasses.replace(settings, env_old=sys.executable, env_new=sys.executable))
    assert same[0].status == "skipped"
    assert same[0].reason == "the environments' versions (2.13.0+cpu, 2.13.0+cpu) do not cross this change"


@pytest.mark.network
def test_torch_1_12_1_on_python_3_10_against_2_13_0_confirms_the_seed_changes(kb: KnowledgeBase) -> None:
    """About 740 MB on the first run (PyPI's torch 1.12.1 for Python 3.10); kept in the user cache."""
    transition = Transition("torch", Version("1.12.1"), Version("2.13.0"))
    outcomes = {o.change: o for o in probe_transitions([transition], kb.crossed([transition]), ProbeSettings())}
    for change in ("torch-floor-divide-rounds-toward-floor", "torch-tensor-int-overflow-raises",
                   "torch-tensor-data-int-on-requires-grad-raises"):
        assert outcomes[change].status == "confirmed", outcomes[change]
    floor = outcomes["torch-floor-divide-rounds-toward-floor"]
    assert floor.old is not None and floor.old.python is not None and floor.old.python.startswith("3.10.")
    assert floor.new is not None and floor.new.version == "2.13.0+cpu"


def test_a_locked_local_build_is_probed_on_its_public_release(numpy_kb: KnowledgeBase, settings: ProbeSettings) -> None:
    """`1.26.0+cu116` in a lock is probed on 1.26.0: the spec changes are the release's."""
    from auditor.models import AuditResult
    from auditor.pipeline import with_probes

    local = Transition("numpy", Version("1.26.0+build1"), Version("2.0.0+build2"))
    changes = tuple(e for e in numpy_kb.entries if e.crossed_by(local))
    result = with_probes(AuditResult((local,), changes, ()), settings)
    promotion = by_change(result.probes)["scalar-promotion"]
    assert promotion.status == "confirmed", promotion
    assert promotion.old.version == "1.26.0"  # type: ignore[union-attr]
    assert result.notes[:2] == (
        "numpy 1.26.0+build1 probed on the 1.26.0 release",
        "numpy 2.0.0+build2 probed on the 2.0.0 release",
    )
    # what the probes' progress said is kept too: this pack's crashing probe was rerun alone
    assert "numpy-aborts killed its batch on numpy 1.26.0; it was rerun alone" in result.notes[2:]


def test_probe_results_that_cannot_be_kept_or_read_are_said_once(
    numpy_kb: KnowledgeBase, settings: ProbeSettings, tmp_path: Path
) -> None:
    from auditor.models import AuditResult
    from auditor.pipeline import with_probes

    changes = tuple(e for e in numpy_kb.entries if e.id == "numpy-scalar-promotion")
    blocked = dataclasses.replace(settings, cache_dir=tmp_path / "blocked")
    (tmp_path / "blocked").mkdir()
    (tmp_path / "blocked" / "results").write_text("a file where the results would be kept")
    result = with_probes(AuditResult((NUMPY,), changes, ()), blocked)
    assert by_change(result.probes)["scalar-promotion"].status == "confirmed"
    kept = [n for n in result.notes if n.startswith("probe results cannot be kept")]
    assert len(kept) == 1 and str(tmp_path / "blocked" / "results") in kept[0]

    fresh = dataclasses.replace(settings, cache_dir=tmp_path / "fresh")
    with_probes(AuditResult((NUMPY,), changes, ()), fresh)
    stored = list((tmp_path / "fresh" / "results").rglob("*.json"))
    assert stored
    for path in stored:
        path.write_text('{"output": 3, "error": null, "warnings": []}')  # not what a result holds
    again = with_probes(AuditResult((NUMPY,), changes, ()), fresh)
    assert by_change(again.probes)["scalar-promotion"].status == "confirmed"
    assert [n for n in again.notes if "kept probe result" in n] == [
        f"a kept probe result in {tmp_path / 'fresh' / 'results'} cannot be used (not a result): the probe was run again"
    ]
