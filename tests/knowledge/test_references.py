"""Every entry's first reference is a primary source: the project that made the change (its
PRs, issues, release notes, docs), or Python's own docs and PEPs. Other projects' issues,
blogs and file listings may follow as "seen in the wild", never first and never alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditor.knowledge.entry import SpecChange
from auditor.knowledge.loader import default_directory, load_entries

# The change's own project on GitHub: its pull requests, issues, releases and commits. A
# file or tree listing (/tree/, /blob/) shows code, not the change: it is not a reference.
_GITHUB = r"https://github\.com/{repo}/(pull|issues|releases/tag|commit)/[^/]+"
REPOSITORIES = {
    "torch": ["pytorch/pytorch"],
    "numpy": ["numpy/numpy"],
    "torchvision": ["pytorch/vision"],
}
SITES = {
    "torch": [r"(docs\.)?pytorch\.org/"],
    "numpy": [r"numpy\.org/"],
    "torchvision": [r"(docs\.)?pytorch\.org/(vision|blog)/"],
}
PYTHON = r"https://(docs|peps)\.python\.org/"  # where Python itself is the subject


def is_primary(url: str, package: str) -> bool:
    patterns = [PYTHON]
    patterns += [_GITHUB.format(repo=re.escape(r)) + r"([#?].*)?$" for r in REPOSITORIES[package]]
    patterns += [f"https://{site}" for site in SITES[package]]
    return any(re.match(p, url, re.IGNORECASE) for p in patterns)


@pytest.mark.parametrize(("url", "package", "primary"), [
    ("https://github.com/pytorch/pytorch/pull/137602", "torch", True),
    ("https://github.com/pytorch/pytorch/issues/43874#issuecomment-1", "torch", True),
    ("https://github.com/pytorch/pytorch/releases/tag/v2.6.0", "torch", True),
    ("https://pytorch.org/docs/stable/generated/torch.load.html", "torch", True),
    ("https://docs.pytorch.org/docs/stable/notes/serialization.html", "torch", True),
    ("https://docs.python.org/3/whatsnew/3.12.html", "torch", True),
    ("https://numpy.org/doc/stable/release/2.0.0-notes.html", "numpy", True),
    ("https://github.com/numpy/numpy/pull/25168", "numpy", True),
    ("https://github.com/pytorch/vision/pull/7949", "torchvision", True),
    ("https://pytorch.org/vision/stable/models.html", "torchvision", True),
    ("https://github.com/ARM-software/Tool-Solutions/pull/303", "torch", False),
    ("https://github.com/huggingface/transformers/issues/1", "torch", False),
    ("https://github.com/pytorch/pytorch/tree/v2.0.0/torch/utils", "torch", False),
    ("https://github.com/pytorch/pytorch/blob/main/torch/serialization.py", "torch", False),
    ("https://pypi.org/project/torch/2.0.0/#files", "torch", False),
    ("https://github.com/pytorch/pytorch/pull/1", "numpy", False),
    ("https://pytorch.org/docs/stable/torch.html", "torchvision", False),
    ("https://github.com/pytorch/hub/issues/1", "torch", False),
    ("https://www.nebuly.com/blog/pytorch-2-0-summary", "torch", False),
])
def test_is_primary(url: str, package: str, primary: bool) -> None:
    assert is_primary(url, package) is primary


def offenders(entries: tuple[SpecChange, ...]) -> list[str]:
    found = []
    for e in entries:
        primary = [r for r in e.references if is_primary(r, e.package)]
        if not primary:
            found.append(f"knowledge/{e.source}: {e.id}: no primary reference among {list(e.references)}")
        elif not is_primary(e.references[0], e.package):
            found.append(f"knowledge/{e.source}: {e.id}: first reference is not primary: {e.references[0]}")
    return found


def test_every_entry_cites_a_primary_source_first() -> None:
    problems = offenders(load_entries())
    assert not problems, f"{len(problems)} entries:\n" + "\n".join(problems)


def test_offenders_name_the_file_of_a_third_party_first_entry(tmp_path: Path) -> None:
    seed = default_directory() / "torch" / "2.6" / "load-weights-only-default-true" / "change.toml"
    # alone in the folder, the entry cannot name the earlier stage it follows nor related entries
    text = re.sub(r"^(follows|related) = .*\n", "", seed.read_text("utf-8"), flags=re.MULTILINE)
    wild = "https://github.com/ARM-software/Tool-Solutions/pull/303"
    (tmp_path / "wild-first.toml").write_text(
        text.replace("references = [\n", f'references = [\n  "{wild}",\n', 1), "utf-8"
    )
    (tmp_path / "wild-only.toml").write_text(
        re.sub(r"references = \[[^\]]*\]", f'references = ["{wild}"]', text)
        .replace('id = "torch-load-weights-only-default-true"', 'id = "torch-wild-only"'),
        "utf-8",
    )
    found = offenders(load_entries(tmp_path))
    assert any("wild-first.toml" in f and "first reference is not primary" in f for f in found)
    assert any("wild-only.toml" in f and "no primary reference" in f for f in found)
    assert len(found) == 2
