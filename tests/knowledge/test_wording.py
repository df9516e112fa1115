"""What entries say about releases agrees with the releases: the last release without an added
API, a warning's wording per release, and a removal the shipped harvest read from the wheels."""

from __future__ import annotations

import re
import sys

from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from auditor.knowledge.loader import default_directory

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

EARLIER = re.compile(r"\b(\d+)\.(\d+) (?:and earlier|or older)\b")


def _texts(entry: SpecChange) -> list[str]:
    return [*(m.message for m in entry.matches if m.message), entry.docs.what, entry.docs.why, entry.docs.before]


def test_an_added_api_names_the_last_minor_series_without_it(kb: KnowledgeBase) -> None:
    wrong = []
    for entry in kb.entries:
        major, minor = entry.introduced.release[:2]
        if entry.kind != "added" or minor == 0:
            continue
        for text in _texts(entry):
            wrong += [f"{entry.id}: {m.group(0)!r}, introduced {entry.introduced}" for m in EARLIER.finditer(text)
                      if (int(m.group(1)), int(m.group(2))) != (major, minor - 1)]
    assert not wrong


def test_sdpa_kernel_is_absent_from_2_2(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-sdpa-kernel-added")
    assert "2.2 and earlier" in entry.matches[0].message  # the 2.2.0 and 2.2.2 wheels lack torch/nn/attention
    assert "2.2 lacks it" in (entry.doubt or "")


def test_the_onnx_warning_says_has_become_from_2_10(kb: KnowledgeBase) -> None:
    # torch/onnx/__init__.py: 2.9.0 "will be the default", 2.10.0 "has become the default"
    what = kb.get("torch-onnx-export-torchscript-exporter-deprecated").docs.what
    assert "from 2.10: has become the default" in what and "from 2.9: has become" not in what


def test_set_deterministic_is_gone_in_the_release_the_harvest_read(kb: KnowledgeBase) -> None:
    harvest = default_directory() / "torch" / "harvest" / "1.9.1..1.10.0.toml"
    ids = {c["id"] for c in tomllib.loads(harvest.read_text(encoding="utf-8")).get("candidate", [])}
    assert "torch@1.10.0:symbol-removed:torch.set_deterministic" in ids
    entry = kb.get("torch-use-deterministic-algorithms-added")
    assert "1.10.0" in (entry.doubt or "") and "not established" not in (entry.doubt or "")
    assert "gone from 1.10" in next(m.message for m in entry.matches if m.call == "torch.set_deterministic")
