"""The second witness: curated entries' releases against a small shipped harvest (real TOML
files in the shipped format), `evidence = "c++"`, reviewed leads, and `kb coverage`'s exit code."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from auditor.cli import app
from auditor.harvest.model import Candidate, Evidence
from auditor.harvest.shipped import pair_text, read_candidates
from auditor.harvest.witness import oldest_release, witness
from auditor.knowledge.base import KnowledgeBase


def candidate(before: str, release: str, kind: str, symbol: str, message: str = "",
              parameter: str | None = None, detail: str = "") -> Candidate:
    cid = f"tiny@{release}:{kind}:{symbol}" + (f":{parameter}" if parameter else "")
    return Candidate(cid, "tiny", before, release, kind, symbol, detail or kind, parameter=parameter,
                     evidence=(Evidence(release, "tiny/__init__.py", 3, message or f"{symbol} here"),))


# tiny 1.0 -> 2.0 -> 3.0 -> 4.0 (3.0 skips 2.5, as a harvest of every other release would).
PAIRS = {
    ("1.0", "2.0"): [
        candidate("1.0", "2.0", "deprecation-begins", "tiny.old", "deprecated: use tiny.new instead"),
        candidate("1.0", "2.0", "deprecation-begins", "tiny.shared", "TINY_HOME is deprecated"),
        candidate("1.0", "2.0", "deprecation-begins", "tiny.core.moved", "tiny.moved is deprecated"),
        candidate("1.0", "2.0", "deprecation-begins", "tiny.Helper.apply", "`tiny.Wrapped` is deprecated"),
        candidate("1.0", "2.0", "default-changed", "tiny.load", parameter="mode",
                  detail="default of mode: 'a' -> 'b'"),
    ],
    ("2.0", "3.0"): [
        candidate("2.0", "3.0", "symbol-removed", "tiny.old"),
        candidate("2.0", "3.0", "deprecation-begins", "tiny.old_twin", "deprecated: use tiny.new instead"),
        candidate("2.0", "3.0", "deprecation-begins", "tiny.other", "tiny.other is deprecated"),
        candidate("2.0", "3.0", "default-changed", "tiny.load", parameter="strict",
                  detail="default of strict: False -> None"),
    ],
    ("3.0", "4.0"): [
        candidate("3.0", "4.0", "warning-category-changed", "tiny.old", "tiny.old is deprecated, use tiny.new"),
    ],
}


def entry(eid: str, introduced: str, kind: str, symbols: list[str], extra: str = "", probe: str = "") -> str:
    return f'''id = "{eid}"
package = "tiny"
introduced = "{introduced}"
kind = "{kind}"
silent = false
severity = "low"
title = "{eid}"
symbols = {json.dumps(symbols)}
references = ["https://example.org/tiny/changelog"]
{extra}
[[match]]
call = "{symbols[0]}"
{probe}
[docs]
what = "tiny changed this function between two releases, as the entry says."
why = "Code that calls it sees the change at the first call after the upgrade."
before = "tiny.x()"
keep_old = "tiny.x()"
adopt_new = "tiny.y()"
'''


def knowledge(tmp_path: Path, entries: dict[str, str], leads: str = "") -> Path:
    root = tmp_path / "knowledge"
    (root / "tiny" / "harvest").mkdir(parents=True)
    (root / "tiny" / "1.0").mkdir()
    for (a, b), found in PAIRS.items():
        (root / "tiny" / "harvest" / f"{a}..{b}.toml").write_text(pair_text("tiny", a, b, found), "utf-8")
    for name, text in entries.items():
        (root / "tiny" / "1.0" / f"{name}.toml").write_text(text, "utf-8")
    if leads:
        (root / "tiny" / "harvest" / "witness.toml").write_text(leads, "utf-8")
    return root


def judged(root: Path) -> dict[str, list[tuple[str, str | None, tuple[str, ...]]]]:
    candidates = read_candidates(root, "tiny")
    w = witness(root, "tiny", KnowledgeBase.load(root).entries, candidates, oldest_release(candidates))
    out: dict[str, list[tuple[str, str | None, tuple[str, ...]]]] = {}
    for v in w.verdicts:
        out.setdefault(v.entry, []).append((v.state, v.symbol, v.releases))
    return out


def test_each_entry_release_is_compared_with_the_harvest(tmp_path: Path) -> None:
    root = knowledge(tmp_path, {
        "right": entry("tiny-old-deprecated", "2.0", "deprecated", ["tiny.old"]),
        "wrong": entry("tiny-old-deprecated-late", "2.5", "deprecated", ["tiny.old"]),
        "skipped-release": entry("tiny-old-removed", "2.5", "removed", ["tiny.old"]),
        "cpp": entry("tiny-old-cpp", "2.5", "deprecated", ["tiny.old"], 'evidence = "c++"'),
        "first": entry("tiny-first", "1.0", "deprecated", ["tiny.old"]),
        "unseen": entry("tiny-unseen", "2.0", "deprecated", ["tiny.nothing"]),
    })
    got = judged(root)
    assert got["tiny-old-deprecated"] == [("agree", None, ())]
    # 2.5 is not a harvested release: 3.0's removal (from 2.0) witnesses it; a deprecation at 2.0 does not
    assert got["tiny-old-deprecated-late"] == [("disagree", "tiny.old", ("2.0",))]
    assert got["tiny-old-removed"] == [("agree", None, ())]
    assert got["tiny-old-cpp"] == [("c++", None, ())]
    assert got["tiny-first"] == [("before harvest", None, ())]
    assert got["tiny-unseen"] == [("no candidate", None, ())]


def test_a_warning_text_a_parameter_and_a_sentinel_default_narrow_the_candidates(tmp_path: Path) -> None:
    probe = '''[probe]
code = "print(1)"
before = "0"
after = "1"
warns = "UserWarning: {text}"
'''
    root = knowledge(tmp_path, {
        # tiny.shared's 2.0 warning is about TINY_HOME, not the entry's change of 3.0
        "other-warning": entry("tiny-shared-other", "3.0", "deprecated", ["tiny.shared"],
                               probe=probe.format(text="shared() without size")),
        "same-warning": entry("tiny-shared-same", "3.0", "deprecated", ["tiny.shared"],
                              probe=probe.format(text="TINY_HOME is")),
        # the entry is about mode; strict's change is another parameter
        "mode": entry("tiny-load-mode", "2.0", "default-changed", ["tiny.load"],
                      probe='keyword_absent = ["mode"]\n'),
        # strict: False -> None is a sentinel, resolved at run time: no witness for 3.0 or against it
        "strict": entry("tiny-load-strict", "3.5", "default-changed", ["tiny.load"],
                        probe='keyword_absent = ["strict"]\n'),
    })
    got = judged(root)
    assert got["tiny-shared-other"] == [("no candidate", None, ())]
    assert got["tiny-shared-same"] == [("disagree", "tiny.shared", ("2.0",))]
    assert got["tiny-load-mode"] == [("agree", None, ())]
    assert got["tiny-load-strict"] == [("no candidate", None, ())]


def test_a_definition_in_a_submodule_or_a_warning_naming_the_symbol_confirms_but_never_disputes(tmp_path: Path) -> None:
    root = knowledge(tmp_path, {
        "at": entry("tiny-moved-at", "2.0", "deprecated", ["tiny.moved"]),
        "after": entry("tiny-moved-after", "3.0", "deprecated", ["tiny.moved"]),
        "named-at": entry("tiny-wrapped-at", "2.0", "deprecated", ["tiny.Wrapped"]),
        "named-after": entry("tiny-wrapped-after", "3.0", "deprecated", ["tiny.Wrapped"]),
        "prefix": entry("tiny-wrapped-prefix", "2.0", "deprecated", ["tiny.Wrap"]),
    })
    got = judged(root)
    assert got["tiny-moved-at"] == [("agree", None, ())]  # tiny.core.moved is where tiny.moved lives
    assert got["tiny-moved-after"] == [("no candidate", None, ())]
    # a helper's warning that names the symbol confirms it; a longer name is another symbol
    assert got["tiny-wrapped-at"] == [("agree", None, ())]
    assert got["tiny-wrapped-after"] == [("no candidate", None, ())]
    assert got["tiny-wrapped-prefix"] == [("no candidate", None, ())]


def test_a_later_category_change_follows_the_deprecation(tmp_path: Path) -> None:
    # tiny.old's category changes in 4.0: without the deprecation of 2.0 in view, that later
    # change neither confirms nor disputes an entry at 2.0
    root = knowledge(tmp_path, {"e": entry("tiny-old-deprecated", "2.0", "deprecated", ["tiny.old"])})
    others = PAIRS[("1.0", "2.0")][1:]  # without tiny.old's deprecation of 2.0
    (root / "tiny" / "harvest" / "1.0..2.0.toml").write_text(pair_text("tiny", "1.0", "2.0", others), "utf-8")
    got = judged(root)
    assert got["tiny-old-deprecated"] == [("no candidate", None, ())]


def test_the_same_warning_on_a_name_added_later_is_not_a_disagreement(tmp_path: Path) -> None:
    # tiny.old warns from 2.0; tiny.old_twin, new in 3.0, carries the very same warning from its
    # first release; tiny.other's 3.0 warning is another one
    root = knowledge(tmp_path, {
        "twin": entry("tiny-old-family", "2.0", "deprecated", ["tiny.old", "tiny.old_twin"]),
        "other": entry("tiny-old-and-other", "2.0", "deprecated", ["tiny.old", "tiny.other"]),
    })
    got = judged(root)
    assert got["tiny-old-family"] == [("agree", None, ())]
    assert got["tiny-old-and-other"] == [("disagree", "tiny.other", ("3.0",))]


LEAD = '''
[[lead]]
entry = "tiny-old-deprecated-late"
symbols = ["tiny.old"]
release = "{release}"
reason = "tiny 2.0's tiny/__init__.py:3 warns for another case; runs: silent on 2.0, warns on 2.5"
'''


def test_a_reviewed_lead_resolves_a_disagreement_and_a_stale_one_fails(tmp_path: Path) -> None:
    entries = {"wrong": entry("tiny-old-deprecated-late", "2.5", "deprecated", ["tiny.old"])}
    root = knowledge(tmp_path / "a", entries, LEAD.format(release="2.0"))
    assert judged(root)["tiny-old-deprecated-late"] == [("resolved", "tiny.old", ("2.0",))]
    candidates = read_candidates(root, "tiny")
    w = witness(root, "tiny", KnowledgeBase.load(root).entries, candidates, oldest_release(candidates))
    assert not w.failed and w.of("resolved")[0].why.startswith("tiny 2.0's")

    stale = knowledge(tmp_path / "b", entries, LEAD.format(release="2.0") + LEAD.format(release="3.0"))
    candidates = read_candidates(stale, "tiny")
    w = witness(stale, "tiny", KnowledgeBase.load(stale).entries, candidates, oldest_release(candidates))
    assert [lead.release for lead in w.stale] == ["3.0"] and w.failed


def test_a_malformed_lead_names_the_file_and_exits_2(tmp_path: Path) -> None:
    root = knowledge(tmp_path, {"e": entry("tiny-old-deprecated", "2.0", "deprecated", ["tiny.old"])},
                     '[[lead]]\nentry = "tiny-old-deprecated"\nrelease = "2.0"\n')
    result = CliRunner().invoke(app, ["kb", "coverage", "--knowledge", str(root)])
    assert result.exit_code == 2
    assert "witness.toml: lead[0]: needs entry, symbols" in result.output
    assert "Traceback" not in result.output


def test_kb_coverage_fails_on_a_disagreement_in_text_and_json(tmp_path: Path) -> None:
    entries = {
        "right": entry("tiny-old-deprecated", "2.0", "deprecated", ["tiny.old"]),
        "wrong": entry("tiny-old-deprecated-late", "2.5", "deprecated", ["tiny.old"]),
        "unseen": entry("tiny-unseen", "2.0", "deprecated", ["tiny.nothing"]),
    }
    root = knowledge(tmp_path / "a", entries)
    text = CliRunner().invoke(app, ["kb", "coverage", "--knowledge", str(root), "-v"])
    assert text.exit_code == 1, text.output
    assert ("DISAGREE tiny-old-deprecated-late: tiny.old is 2.5 in the entry, 2.0 in the harvest "
            "(tiny@2.0:deprecation-begins:tiny.old)") in text.stdout
    assert "1 entries have no candidate and no `evidence`:" in text.stdout
    assert "    tiny-unseen (2.0)" in text.stdout

    data = json.loads(CliRunner().invoke(app, ["kb", "coverage", "--knowledge", str(root), "-f", "json"]).stdout)
    w = data["packages"][0]["witness"]
    assert w["totals"]["disagree"] == 1 and w["totals"]["agree"] == 1
    assert w["disagree"] == [{"entry": "tiny-old-deprecated-late", "introduced": "2.5", "symbol": "tiny.old",
                              "harvest": ["2.0"], "candidates": ["tiny@2.0:deprecation-begins:tiny.old"]}]
    assert w["no_candidate"] == ["tiny-unseen"]

    fixed = knowledge(tmp_path / "b", entries, LEAD.format(release="2.0"))
    assert CliRunner().invoke(app, ["kb", "coverage", "--knowledge", str(fixed)]).exit_code == 0


def test_evidence_is_checked_loaded_and_shown(tmp_path: Path) -> None:
    root = knowledge(tmp_path, {"cpp": entry("tiny-old-cpp", "2.5", "deprecated", ["tiny.old"], 'evidence = "c++"')})
    e = KnowledgeBase.load(root).get("tiny-old-cpp")
    assert e.evidence == "c++"
    from auditor.report.kb import show

    assert "evidence c++" in show(e, "text")
    assert json.loads(show(e, "json"))["entry"]["evidence"] == "c++"
    (root / "tiny" / "1.0" / "cpp.toml").write_text(
        entry("tiny-old-cpp", "2.5", "deprecated", ["tiny.old"], 'evidence = "rust"'), "utf-8")
    result = CliRunner().invoke(app, ["kb", "coverage", "--knowledge", str(root)])
    assert result.exit_code == 2 and "cpp.toml: evidence:" in result.output


def test_the_shipped_knowledge_has_no_disagreement(shipped_coverage: Result) -> None:
    result = shipped_coverage
    assert result.exit_code == 0, result.output
    for package in json.loads(result.stdout)["packages"]:
        assert package["witness"]["disagree"] == [] and package["witness"]["stale_leads"] == []


def test_a_covered_candidate_on_another_symbol_confirms_and_evidence_says_where_the_rest_lives(tmp_path: Path) -> None:
    # tiny.facade's change shows only on the helper tiny.Helper.apply (2.0); an entry that covers
    # that candidate is witnessed by it, one that does not stays unwitnessed; a covered candidate
    # of another release does not confirm; `evidence` names where an unwitnessed change lives and
    # gives way to a candidate that does witness the release
    helper = "tiny@2.0:deprecation-begins:tiny.Helper.apply"
    root = knowledge(tmp_path, {
        "covered": entry("tiny-facade-covered", "2.0", "deprecated", ["tiny.facade"], f'covers = ["{helper}"]'),
        "uncovered": entry("tiny-facade", "2.0", "deprecated", ["tiny.facade"]),
        "late": entry("tiny-facade-late", "3.0", "deprecated", ["tiny.facade"], f'covers = ["{helper}"]'),
        "constant": entry("tiny-facade-constant", "2.0", "default-changed", ["tiny.facade"], 'evidence = "behaviour"'),
        "seen": entry("tiny-old-announced", "2.0", "deprecated", ["tiny.old"], 'evidence = "announcement"'),
    })
    got = judged(root)
    assert got["tiny-facade-covered"] == [("agree", None, ())]
    assert got["tiny-facade"] == [("no candidate", None, ())]
    assert got["tiny-facade-late"] == [("no candidate", None, ())]
    assert got["tiny-facade-constant"] == [("behaviour", None, ())]
    assert got["tiny-old-announced"] == [("agree", None, ())]


def test_every_evidence_value_of_the_schema_is_a_witness_state() -> None:
    import auditor.knowledge
    from auditor.harvest.witness import EVIDENCE, STATES

    schema = json.loads((Path(auditor.knowledge.__file__).parent / "entry.schema.json").read_text("utf-8"))
    assert schema["properties"]["evidence"]["enum"] == list(EVIDENCE)
    assert set(EVIDENCE) <= set(STATES)
