"""Recall and false alarms of the scanner over a second labelled codebase of another style.

tests/fixtures/labelled2/ is a time-series library package (`tslib`: modules calling each other,
re-exports, import aliases, methods of its own classes with torch/numpy names, version guards)
and three research notebooks (nbformat 4, outputs, magics) that use it. Truly affected lines end
in `# expect: <change id>`; lines written to resemble them end in `# lookalike`. Recall is the
share of labelled sites found; the false-alarm rate is the share of look-alike lines holding a
finding. A finding on a line that is neither labelled nor a look-alike is a false alarm too
(counted over the look-alikes' number). Run with `-s` to see the numbers.

The scan runs with the ends of a torch 1.12.1 -> 2.14.0 and numpy 1.26.4 -> 2.4.1 upgrade, so a
guard that holds the same way at both ends (`torch.__version__ < "1.5"`) makes its branch dead.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from labelled_sites import labels, lookalikes, score
from packaging.version import Version

from auditor.knowledge.base import KnowledgeBase
from auditor.models import Finding
from auditor.scan import scan_project
from auditor.scan.rules import transition_ends

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "labelled2"
ENDS = transition_ends([
    ("torch", Version("1.12.1"), Version("2.14.0"), None),
    ("numpy", Version("1.26.4"), Version("2.4.1"), None),
])
ENTRIES = (
    "torch-floor-divide-rounds-toward-floor",
    "torch-load-weights-only-default-true",
    "torch-cuda-amp-autocast-deprecated",
    "torch-cuda-amp-gradscaler-deprecated",
    "torch-meshgrid-indexing-warns",
    "torch-stft-return-complex-required",
    "torch-softmax-implicit-dim-deprecated",
    "torch-range-deprecated",
    "torch-norm-deprecated",
    "torch-svd-deprecated",
    "torch-qr-removed",
    "torch-cholesky-removed",
    "torch-chain-matmul-deprecated",
    "torch-ger-deprecated",
    "torch-set-default-tensor-type-deprecated",
    "torch-checkpoint-use-reentrant-warns",
    "torch-dataloader-pin-memory-without-accelerator-warns",
    "torch-lr-scheduler-verbose-removed",
    "numpy-float-alias-removed",
    "numpy-complex-alias-removed",
    "numpy-string-alias-removed",
    "numpy-unicode-alias-removed",
    "numpy-nan-alias-removed",
    "numpy-infinity-aliases-removed",
    "numpy-round-alias-removed",
    "numpy-product-aliases-removed",
    "numpy-sometrue-alltrue-removed",
    "numpy-in1d-deprecated",
    "numpy-trapz-deprecated",
    "numpy-row-stack-deprecated",
    "numpy-msort-removed",
    "numpy-ndarray-methods-removed",
)


@pytest.fixture(scope="module")
def measured(kb: KnowledgeBase) -> tuple[list[Finding], list]:
    return scan_project(PROJECT, [kb.get(e) for e in ENTRIES], ends=ENDS)


def test_the_project_is_big_enough_and_names_known_entries() -> None:
    sites, similar = labels(PROJECT), lookalikes(PROJECT)
    assert {site[3] for site in sites} <= set(ENTRIES)
    assert {site[3] for site in sites} == set(ENTRIES)  # every entry has a site
    assert len(sites) >= 150 and len(similar) >= 100
    assert {site[0] for site in sites if site[1] is not None} == {
        "notebooks/01_spectra.ipynb", "notebooks/02_forecast.ipynb", "notebooks/03_anomalies.ipynb",
        "notebooks/04_benchmark.ipynb"}


def test_recall_and_false_alarms(measured: tuple[list[Finding], list]) -> None:
    findings, _ = measured
    s = score({(f.path, f.cell, f.line, f.change) for f in findings}, PROJECT)
    s.show("labelled project 2")
    assert s.recall >= 0.98, f"recall {s.recall:.3f}; missed {sorted(s.expected - s.found, key=str)}"
    assert s.rate <= 0.01, f"false alarms on {s.rate:.3%} of look-alikes: {sorted(s.found - s.expected, key=str)}"


def test_nothing_is_skipped(measured: tuple[list[Finding], list]) -> None:
    _, skipped = measured
    assert [(s.path, s.reason) for s in skipped] == []
