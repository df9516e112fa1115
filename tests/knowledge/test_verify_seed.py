"""The seed entries' probes, run against the real torch installed by the test extras."""

import json

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.knowledge.base import KnowledgeBase
from auditor.probe import verify

torch = pytest.importorskip("torch")

SEED = [
    "torch-dropout2d-3d-input-read-as-unbatched",
    "torch-dropout2d-3d-input-warns",
    "torch-clamp-type-promotion",
    "torch-complex-promotion-of-0dim-operands",
    "torch-tensor-int-overflow-raises",
    "torch-tensor-data-int-on-requires-grad-raises",
    "torch-floor-divide-rounds-toward-floor",
]


@pytest.mark.slow
def test_seed_probes_pass_on_the_installed_torch(kb: KnowledgeBase) -> None:
    verification = verify([kb.get(i) for i in SEED])
    assert verification.package_versions["torch"].startswith(torch.__version__.split("+")[0])
    statuses = {v.id: (v.status, v.expected, v.observed) for v in verification.results}
    assert all(status == "pass" for status, _, _ in statuses.values()), statuses
    # 2.13 has floor rounding: the verdict compared against the `after` side
    assert statuses["torch-floor-divide-rounds-toward-floor"][1] == "-2 -2"


@pytest.mark.slow
def test_a_wrong_expectation_fails(kb: KnowledgeBase) -> None:
    from dataclasses import replace

    entry = kb.get("torch-floor-divide-rounds-toward-floor")
    wrong = replace(entry, probe=replace(entry.probe, after="-1 -1"))
    [verdict] = verify([wrong]).results
    assert verdict.status == "fail"
    assert verdict.observed == "-2 -2"


@pytest.mark.slow
def test_kb_verify_passes_every_probe_on_the_installed_torch_and_numpy() -> None:
    """The whole knowledge base against the test extras' torch 2.13.0 and numpy 2.x."""
    result = CliRunner().invoke(app, ["kb", "verify", "--format", "json"])
    document = json.loads(result.stdout)
    assert document["schema_version"] == "1"
    assert document["package_versions"]["torch"].startswith("2.")
    assert document["package_versions"]["numpy"].startswith("2.")
    bad = {r["id"]: (r["expected"], r["observed"]) for r in document["results"] if r["status"] in ("fail", "error")}
    assert bad == {}
    assert result.exit_code == 0
    skipped = [r for r in document["results"] if r["status"] == "skip"]
    assert all(r["observed"] for r in skipped), "every skip says why"
    seed = {r["id"]: r["status"] for r in document["results"] if r["id"] in SEED}
    assert set(seed.values()) == {"pass"}


@pytest.mark.slow
def test_a_probe_says_nothing_before_its_since_release(kb: KnowledgeBase) -> None:
    from dataclasses import replace

    from packaging.version import Version

    entry = kb.get("torch-floor-divide-rounds-toward-floor")
    later = replace(entry, probe=replace(entry.probe, since=Version("99.0")))
    [verdict] = verify([later]).results
    assert verdict.status == "skip"
    assert "99.0" in verdict.observed
