"""Precision and recall of the scanner over a labelled training codebase.

tests/fixtures/labelled/ is a small segmentation project written like real ones, modules and
notebooks (nbformat 4 and 3), with every truly affected line labelled `# expect: <change id>`
and look-alikes (lines naming the entries' functions, operators or words without being
affected) marked `# lookalike`. A finding is a true positive when its (file, cell, line,
change) is labelled; recall is the share of labels found; the
false-alarm rate is the share of look-alike lines (as a count: a finding on an unmarked line counts
too) holding a finding. Run with `-s` to see the numbers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from labelled_sites import Site, labels, score

from auditor.knowledge.base import KnowledgeBase
from auditor.scan import scan_project

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "labelled"
# The entries whose call sites the project holds (one of each pair of entries sharing matchers).
ENTRIES = (
    "torch-floor-divide-rounds-toward-floor",
    "torch-clamp-type-promotion",
    "torch-tensor-data-int-on-requires-grad-raises",
    "torch-tensor-int-overflow-raises",
    "torch-complex-promotion-of-0dim-operands",
    "torch-dropout2d-3d-input-warns",
    "torch-solve-removed",
    "torch-eig-removed",
    "torch-lstsq-removed",
    "torch-symeig-removed",
    "torch-matrix-rank-removed",
    "torch-load-weights-only-default-true",
    "torch-checkpoint-use-reentrant-warns",
    "torch-cuda-amp-autocast-deprecated",
    "torch-cuda-amp-gradscaler-deprecated",
    "torch-cuda-amp-custom-fwd-deprecated",
    "torch-jit-deprecation-warning",
    "torch-typedstorage-deprecated",
    "torch-set-default-tensor-type-deprecated",
    "torch-functorch-api-deprecated",
)
@pytest.fixture(scope="module")
def measured(kb: KnowledgeBase) -> tuple[set[Site], set[Site], list]:
    findings, skipped = scan_project(PROJECT, [kb.get(e) for e in ENTRIES])
    found = {(f.path, f.cell, f.line, f.change) for f in findings}
    return found, labels(PROJECT), skipped


def test_labels_name_known_entries() -> None:
    assert {site[3] for site in labels(PROJECT)} <= set(ENTRIES)
    assert len(labels(PROJECT)) >= 50


def test_precision_and_recall(measured: tuple[set[Site], set[Site], list]) -> None:
    found, expected, _ = measured
    s = score(found, PROJECT)
    assert s.expected == expected
    precision = len(s.true) / len(found)
    s.show("labelled project")
    print(f"  precision {precision:.3f}")
    assert s.recall >= 0.98, f"recall {s.recall:.3f}; missed {sorted(expected - found, key=str)}"
    assert precision >= 0.97, f"precision {precision:.3f}; false alarms {sorted(found - expected, key=str)}"
    assert s.rate <= 0.01, f"false alarms on {s.rate:.3%} of look-alikes: {sorted(found - expected, key=str)}"


def test_only_the_broken_cell_is_skipped(measured: tuple[set[Site], set[Site], list]) -> None:
    *_, skipped = measured
    assert [(s.path, s.reason) for s in skipped] == [
        ("notebooks/explore.ipynb", "cell 10, line 1: syntax error: invalid syntax")
    ]
