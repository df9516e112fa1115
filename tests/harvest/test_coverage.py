"""The shipped harvest's three states (covered, generated, waived; the rest open), the loader's
flag, and the generated matchers on real code."""

from __future__ import annotations

import json
from pathlib import Path

from packaging.version import Version
from typer.testing import CliRunner, Result

from auditor import pipeline
from auditor.cli import app
from auditor.harvest.coverage import coverage, generated_changes
from auditor.harvest.generate import Open, guard_conditions, matches
from auditor.harvest.model import Candidate, Evidence, Harvest, Param
from auditor.harvest.shipped import pair_text, read_candidates, ship
from auditor.knowledge.base import KnowledgeBase
from auditor.models import Transition
from tests.harvest.test_candidates import release
from tests.harvest.wheels import NEW, OLD

CURATED = '''
id = "tiny-gone-removed"
package = "tiny"
introduced = "2.0"
kind = "removed"
silent = false
severity = "high"
title = "tiny.gone was removed"
symbols = ["tiny.gone"]
covers = ["tiny@2.0:symbol-removed:tiny.gone"]
references = ["https://example.org/tiny/changelog"]

[[match]]
call = "tiny.gone"

[docs]
what = "tiny.gone(x) was removed from tiny in release 2.0; nothing replaces it directly."
why = "Every call of tiny.gone raises AttributeError once tiny 2.0 is installed."
before = "tiny.gone(1)"
keep_old = "pin tiny<2"
adopt_new = "tiny.keep(1)"
'''

WAIVERS = '''
[[waive]]
pattern = "tiny.Engine.*"
reason = "Engine's methods are internal plumbing, not user API"
'''


def knowledge(tmp_path: Path) -> Path:
    root = tmp_path / "knowledge"
    (root / "tiny" / "2.0").mkdir(parents=True)
    (root / "tiny" / "2.0" / "gone.toml").write_text(CURATED.lstrip(), "utf-8")
    h = Harvest("tiny", (release(OLD, "1.0"), release(NEW, "2.0")), ())
    from auditor.harvest.candidates import compare

    h = Harvest("tiny", h.releases, tuple(compare(*h.releases)))
    ship(h, root)
    (root / "tiny" / "harvest" / "waivers.toml").write_text(WAIVERS, "utf-8")
    return root


def test_shipped_files_round_trip(tmp_path: Path) -> None:
    root = knowledge(tmp_path)
    files = sorted(p.name for p in (root / "tiny" / "harvest").iterdir())
    assert files == ["1.0..2.0.toml", "presence.json", "waivers.toml"]
    back = read_candidates(root, "tiny")
    original = compare_tiny()
    assert back == original
    text = (root / "tiny" / "harvest" / "1.0..2.0.toml").read_text("utf-8")
    assert text == pair_text("tiny", "1.0", "2.0", original)  # the same bytes for the same harvest


def test_shipping_again_deletes_the_file_of_a_pair_left_without_candidates(tmp_path: Path) -> None:
    root = knowledge(tmp_path)
    same = Harvest("tiny", (release(OLD, "1.0"), release(OLD, "2.0")), ())  # nothing changes any more
    assert ship(same, root) == []
    assert sorted(p.name for p in (root / "tiny" / "harvest").iterdir()) == ["waivers.toml"]


def compare_tiny() -> list[Candidate]:
    from auditor.harvest.candidates import compare

    return compare(release(OLD, "1.0"), release(NEW, "2.0"))


def test_every_candidate_ends_in_one_state(tmp_path: Path) -> None:
    root = knowledge(tmp_path)
    kb = KnowledgeBase.load(root)
    result = coverage(root, "tiny", kb.entries)
    state = {s.candidate.id: (s.state, s.why) for s in result.standings}
    assert state["tiny@2.0:symbol-removed:tiny.gone"] == ("covered", "tiny-gone-removed")
    assert state["tiny@2.0:default-changed:tiny.Engine:mode"][0] == "generated"
    assert state["tiny@2.0:parameter-removed:tiny.Engine.base_method:b"] == (
        "waived", "Engine's methods are internal plumbing, not user API")
    assert state["tiny@2.0:removal-stub-added:tiny.eig"][0] == "generated"
    assert state["tiny@2.0:deprecation-begins:tiny.decorated"][0] == "generated"
    assert sum(result.totals().values()) == len(result.standings) == len(compare_tiny())
    (a, b, counts), = result.per_release()
    assert (a, b) == ("1.0", "2.0") and counts["covered"] == 1 and counts["waived"] >= 1


def test_the_loader_generates_only_when_asked(tmp_path: Path) -> None:
    root = knowledge(tmp_path)
    plain = KnowledgeBase.load(root)
    assert [e.id for e in plain.entries] == ["tiny-gone-removed"]
    full = KnowledgeBase.load(root, harvested=True)
    generated = [e for e in full.entries if e.harvested is not None]
    assert generated and len(full.entries) == 1 + len(generated)
    ids = {e.id for e in generated}
    assert "tiny@2.0:symbol-removed:tiny.gone" not in ids  # covered: the curated entry speaks
    assert not any(i.startswith("tiny@2.0:parameter-removed:tiny.Engine.") for i in ids)  # waived
    eig = full.get("tiny@2.0:removal-stub-added:tiny.eig")
    assert eig.harvested is not None and eig.harvested.file == "tiny/__init__.py"
    assert "not probe-verified" in eig.title and "not probe-verified" in (eig.matches[0].message or "")
    assert sorted(e.id for e in generated_changes(root, plain.entries)) == sorted(ids)


def test_an_audit_without_the_generated_changes_says_how_many_it_crossed_unchecked(tmp_path: Path) -> None:
    root = knowledge(tmp_path)
    plain, full = KnowledgeBase.load(root), KnowledgeBase.load(root, harvested=True)
    up, down = Transition("tiny", Version("1.0"), Version("2.0")), Transition("tiny", Version("2.0"), Version("1.0"))
    crossed = [c for c in full.crossed([up]) if c.harvested is not None]
    assert crossed
    assert plain.not_loaded([up]) == (
        f"tiny 1.0 -> 2.0 also crosses {len(crossed)} changes generated from tiny's own released source "
        "(not probe-verified) that this audit did not check: --harvested (the Action's `harvested` input) reports their "
        "call sites, at low confidence",
    )
    assert full.not_loaded([up]) == ()  # loaded: they were checked
    back = [c for c in full.crossed([down]) if c.harvested is not None]  # the defaults changed hurt both ways
    assert back and f"tiny 2.0 -> 1.0 also crosses {len(back)} changes" in plain.not_loaded([down])[0]
    assert plain.not_loaded([Transition("tiny", Version("2.0"), Version("2.0"))]) == ()
    (project := tmp_path / "project").mkdir()
    (project / "m.py").write_text("import tiny\n", "utf-8")
    result = pipeline.audit([up], project, plain)
    assert plain.not_loaded([up])[0] in result.notes


def test_the_kept_base_counts_the_generated_changes_and_a_harvest_edit_counts_again(tmp_path: Path) -> None:
    root = knowledge(tmp_path)
    cache = tmp_path / "cache"
    first = KnowledgeBase.load(root, cache_dir=cache)
    assert sum(g.count for g in first.unloaded) == len(generated_changes(root, first.entries)) > 0
    assert KnowledgeBase.load(root, cache_dir=cache).unloaded == first.unloaded  # read back from the kept JSON
    (root / "tiny" / "harvest" / "waivers.toml").write_text(WAIVERS + '''
[[waive]]
pattern = "tiny.*"
reason = "everything waived"
''', "utf-8")
    assert KnowledgeBase.load(root, cache_dir=cache).unloaded == ()


def generated_ids(kb: KnowledgeBase) -> list[str]:
    return sorted(e.id for e in kb.entries if e.harvested is not None)


def test_the_generated_changes_are_kept_and_read_back_while_the_files_are_the_same(tmp_path: Path) -> None:
    root, cache = knowledge(tmp_path), tmp_path / "cache"
    made = KnowledgeBase.load(root, cache_dir=cache, harvested=True)
    computed = sorted(c.id for c in generated_changes(root, KnowledgeBase.load(root).entries))
    assert generated_ids(made) == computed and len(computed) > 1 and made.notes == ()
    (stored,) = (cache / "knowledge").glob("*.generated.json")
    data = json.loads(stored.read_bytes())  # plain JSON: the candidates
    assert sorted(d["id"] for d in data) == computed
    stored.write_text(json.dumps(data[:1]), "utf-8")  # what is kept is what is read: the harvest is not
    assert generated_ids(KnowledgeBase.load(root, cache_dir=cache, harvested=True)) == [data[0]["id"]]
    stored.write_bytes(b"not json")
    damaged = KnowledgeBase.load(root, cache_dir=cache, harvested=True)
    assert generated_ids(damaged) == computed
    assert len(damaged.notes) == 1 and "kept generated changes" in damaged.notes[0] and "damaged" in damaged.notes[0]
    assert generated_ids(KnowledgeBase.load(root, cache_dir=cache, harvested=True)) == computed  # kept again
    (root / "tiny" / "harvest" / "waivers.toml").write_text(WAIVERS + '''
[[waive]]
pattern = "tiny.*"
reason = "everything waived"
''', "utf-8")
    assert generated_ids(KnowledgeBase.load(root, cache_dir=cache, harvested=True)) == []  # an edit: made again


def test_a_wheel_ships_its_generated_changes_made(tmp_path: Path) -> None:
    from auditor.knowledge.stored import GENERATED, SHIPPED
    from auditor.knowledge.stored import ship as ship_base

    root = knowledge(tmp_path)
    computed = generated_ids(KnowledgeBase.load(root, harvested=True))
    ship_base(root, root / SHIPPED)
    shipped = json.loads((root / GENERATED).read_bytes())
    assert sorted(d["id"] for d in shipped["base"]) == computed
    assert generated_ids(KnowledgeBase.load(root, harvested=True)) == computed
    (root / GENERATED).write_text(json.dumps({**shipped, "base": shipped["base"][:1]}), "utf-8")
    assert generated_ids(KnowledgeBase.load(root, harvested=True)) == [shipped["base"][0]["id"]]  # read, not made
    (root / GENERATED).write_text(json.dumps({**shipped, "key": "another"}), "utf-8")
    assert generated_ids(KnowledgeBase.load(root, harvested=True)) == computed  # not these files': made


def candidate(kind: str, symbol: str, guard: str | None = None, params: tuple[Param, ...] = (),
              parameter: str | None = None, symbol_kind: str = "function", conditional: bool = False) -> Candidate:
    return Candidate(f"torch@2.1.0:{kind}:{symbol}", "torch", "2.0.0", "2.1.0", kind, symbol, "test", parameter,
                     guard, "UserWarning", (Evidence("2.1.0", "torch/x.py", 3, "deprecated"),), symbol_kind,
                     conditional, params)


SOFTMAX_PARAMS = (Param("input", "positional", None), Param("dim", "positional", "None"),
                  Param("_stacklevel", "positional", "3"), Param("dtype", "positional", "None"))


def test_guards_become_argument_conditions_or_stay_open() -> None:
    loss = (Param("size_average", "positional", "None"), Param("reduce", "positional", "None"))
    both = guard_conditions("size_average is not None or reduce is not None", loss, False)
    assert not isinstance(both, Open)
    assert [c.keyword_present for c in both] == [("size_average",), ("reduce",)]
    dim = guard_conditions("dim is None", SOFTMAX_PARAMS, False)
    assert not isinstance(dim, Open) and dim[0].keyword_absent == ("dim",) and dim[0].max_positional == 1
    assert isinstance(guard_conditions("isinstance(x, int)", SOFTMAX_PARAMS, False), Open)
    assert isinstance(guard_conditions("dim is None and x > 2", SOFTMAX_PARAMS, False), Open)
    conditional = candidate("deprecation-begins", "torch.f", guard="dim is None", params=SOFTMAX_PARAMS,
                            conditional=True)
    assert isinstance(matches(conditional), Open)
    other_method = matches(candidate("symbol-removed", "torch.nn.Module.foo", symbol_kind="method"))
    assert not isinstance(other_method, Open)  # keyed by the class: matched on its instances only
    assert other_method[0].call == "torch.nn.Module.foo" and other_method[0].method == ()
    assert isinstance(matches(candidate("symbol-removed", "torch.cuda.foo.bar", symbol_kind="method")), Open)
    tensor_method = matches(candidate("symbol-removed", "torch.Tensor.foo", symbol_kind="method"))
    assert not isinstance(tensor_method, Open) and tensor_method[0].method == ("foo",)


def test_generated_matchers_are_narrow_on_real_code(tmp_path: Path) -> None:
    from auditor.harvest.generate import spec_change

    softmax = candidate("deprecation-begins", "torch.nn.functional.softmax", guard="dim is None",
                        params=SOFTMAX_PARAMS)
    removed = candidate("parameter-removed", "torch.autograd.grad", parameter="only_inputs")
    changes = []
    for c in (softmax, removed):
        found = matches(c)
        assert not isinstance(found, Open)
        changes.append(spec_change(c, found))
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(
        "import torch\nimport torch.nn.functional as F\n"
        "a = F.softmax(x)\n"            # 3: implicit dim -> found
        "b = F.softmax(x, 1)\n"         # 4: positional dim
        "c = F.softmax(x, dim=1)\n"     # 5: keyword dim
        "g = torch.autograd.grad(y, x, only_inputs=True)\n"  # 6: found
        "h = torch.autograd.grad(y, x)\n",  # 7
        "utf-8")
    result = pipeline.scan(project, "2.0.0", "2.1.0", KnowledgeBase(tuple(changes)))
    assert sorted((f.change.split(":")[-1], f.line) for f in result.findings) == [
        ("torch.autograd.grad", 6), ("torch.nn.functional.softmax", 3)]


def test_cli_coverage_reads_the_shipped_knowledge(shipped_coverage: Result) -> None:
    result = shipped_coverage
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["schema_version"] == "1"
    for package in data["packages"]:
        totals = package["totals"]
        assert totals["candidates"] == sum(totals[s] for s in ("covered", "generated", "waived", "open"))


def test_every_format_marks_a_generated_change_with_its_evidence(tmp_path: Path) -> None:
    import io

    from auditor.harvest.generate import spec_change
    from auditor.report import WRITERS

    softmax = candidate("deprecation-begins", "torch.nn.functional.softmax", guard="dim is None",
                        params=SOFTMAX_PARAMS)
    found = matches(softmax)
    assert not isinstance(found, Open)
    project = tmp_path / "p"
    project.mkdir()
    (project / "m.py").write_text("import torch.nn.functional as F\nF.softmax(x)\n", "utf-8")
    result = pipeline.scan(project, "2.0.0", "2.1.0", KnowledgeBase((spec_change(softmax, found),)))
    assert len(result.findings) == 1
    for fmt in ("text", "json", "markdown", "sarif", "github"):
        out = io.StringIO()
        WRITERS[fmt](result, out)
        assert "not probe-verified" in out.getvalue(), fmt
        # low confidence: GitHub annotations only count it, the job summary (markdown) shows it
        assert "torch/x.py:3" in out.getvalue() or fmt in ("json", "github"), fmt
    assert [f.confidence for f in result.findings] == ["low"]
    out = io.StringIO()
    WRITERS["json"](result, out)
    change = json.loads(out.getvalue())["changes"][0]
    assert change["source"] == "harvested"
    assert change["evidence"] == {"release": "2.1.0", "file": "torch/x.py", "line": 3, "message": "deprecated"}


def test_every_shipped_covers_id_names_a_shipped_candidate_of_the_entrys_release() -> None:
    from packaging.version import Version

    from auditor.knowledge.loader import default_directory, load_entries

    root = default_directory()
    entries = [e for e in load_entries(root) if e.covers]
    assert entries, "no curated entry names the candidates it covers"
    candidates = {c.id: c for package in {e.package for e in entries} for c in read_candidates(root, package)}
    seen: dict[str, str] = {}
    for e in entries:
        assert list(e.covers) == sorted(set(e.covers)), f"{e.source}: covers is not sorted and unique"
        for cid in e.covers:
            c = candidates.get(cid)
            assert c is not None, f"{e.source}: covers names {cid!r}, which no shipped harvest file holds"
            assert c.package == e.package, f"{e.source}: {cid} is a {c.package} candidate"
            releases = [v for v in (e.introduced, e.until) if v is not None]
            assert any(Version(c.before) < v <= Version(c.release) for v in releases), (
                f"{e.source}: {cid} is a change of {c.before} -> {c.release}, not of {e.introduced}")
            assert seen.setdefault(cid, e.id) == e.id, f"{cid} is covered by both {seen[cid]} and {e.id}"


def _shipped_waived(package: str) -> list[tuple[Candidate, str]]:
    """(candidate, the reason of the waiver that takes it) for the shipped candidates no curated
    entry covers: the ones a waiver really decides."""
    from auditor.harvest.shipped import read_waivers
    from auditor.knowledge.loader import default_directory, load_entries

    root = default_directory()
    covered = {cid for e in load_entries(root) for cid in e.covers}
    waivers = read_waivers(root, package)
    out = []
    for c in read_candidates(root, package):
        w = next((w for w in waivers if w.waives(c)), None)
        if w is not None and c.id not in covered:
            out.append((c, w.reason))
    return out


def test_tensor_subclass_waivers_take_only_methods_with_a_torch_tensor_twin() -> None:
    from auditor.knowledge.loader import default_directory

    twins = {(c.before, c.kind, c.symbol.rsplit(".", 1)[1], c.parameter)
             for c in read_candidates(default_directory(), "torch") if c.symbol.startswith("torch.Tensor.")}
    taken = [c for c, reason in _shipped_waived("torch") if "inherited from torch.Tensor" in reason]
    assert taken  # fewer since the harvest follows inheritance (was > 100)
    lonely = [c.id for c in taken if (c.before, c.kind, c.symbol.rsplit(".", 1)[1], c.parameter) not in twins]
    assert not lonely, f"waived as torch.Tensor's, but torch.Tensor has no such candidate: {lonely[:5]}"
    assert not [c.id for c in taken if c.symbol.startswith("torch.Tensor.")]


def test_longer_path_waivers_take_only_members_listed_under_the_short_path() -> None:
    import re

    from auditor.knowledge.loader import default_directory

    keys = {(c.before, c.kind, c.symbol, c.parameter) for c in read_candidates(default_directory(), "torch")}
    taken = 0
    for c, reason in _shipped_waived("torch"):
        found = re.match(r"members of the same classes as (\S+)\.\*", reason)
        if found is None:
            continue
        taken += 1
        short = found.group(1).split(".")
        tail = c.symbol.split(".")[len(short) + 1:]  # drop the longer path's extra module segment
        assert (c.before, c.kind, ".".join(short + tail), c.parameter) in keys, c.id
    assert taken > 0


def test_waivers_that_say_not_removed_take_only_symbols_that_resolve_on_this_torch() -> None:
    import importlib
    import warnings

    def resolves(symbol: str) -> bool:
        parts = symbol.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for name in parts[i:]:
                if not hasattr(obj, name):
                    return False
                obj = getattr(obj, name)
            return True
        return False

    taken = [c for c, reason in _shipped_waived("torch") if "resolves on 2.13.0" in reason]
    assert taken  # fewer since the harvest follows inheritance (was > 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gone = [c.id for c in taken if not resolves(c.symbol)]
    assert not gone, f"waived as still defined, but absent from this torch: {gone[:5]}"


def test_a_default_that_becomes_none_is_left_open_a_new_value_is_generated() -> None:
    layout = candidate("default-changed", "torch.zeros", parameter="layout",
                       params=(Param("size", "var-positional", None), Param("layout", "keyword-only", "None")))
    found = matches(layout)
    assert isinstance(found, Open) and "puts a value in" in found.reason
    reentrant = candidate("default-changed", "torch.utils.checkpoint.checkpoint", parameter="use_reentrant",
                          params=(Param("function", "positional", None), Param("use_reentrant", "keyword-only", "False")))
    generated = matches(reentrant)
    assert not isinstance(generated, Open) and generated[0].when.keyword_absent == ("use_reentrant",)


def test_cli_harvested_reports_generated_changes_at_low_confidence(tmp_path: Path) -> None:
    from auditor.knowledge.loader import default_directory

    root = default_directory()
    generated = [c for c in generated_changes(root, KnowledgeBase.load(root).entries)
                 if c.package == "torch" and c.matches[0].call and not c.matches[0].when.keyword_present
                 and c.kind == "deprecated" and c.matches[0].when == type(c.matches[0].when)()]
    assert generated, "the shipped harvest generates whole-symbol torch deprecations"
    change = generated[0]
    symbol = change.matches[0].call
    assert symbol is not None
    (tmp_path / "m.py").write_text(f"import torch\n\n{symbol}(1)\n", "utf-8")
    before = next(c.before for c in read_candidates(root, "torch") if c.id == change.id)
    args = ["scan", str(tmp_path), "--from", before, "--to", str(change.introduced), "--no-cache", "-f", "json"]
    without = json.loads(CliRunner().invoke(app, args).stdout)
    assert change.id not in {f["change"] for f in without["findings"]}
    done = CliRunner().invoke(app, [*args, "--harvested"])
    data = json.loads(done.stdout)
    found = [f for f in data["findings"] if f["change"] == change.id]
    assert [(f["line"], f["confidence"]) for f in found] == [(3, "low")]
    assert next(c for c in data["changes"] if c["id"] == change.id)["source"] == "harvested"
    others = [f for f in data["findings"] if f["change"] != change.id and f["confidence"] != "low"]
    assert done.exit_code == (1 if others or data["environment"] else 0)  # low confidence does not count


def test_the_deprecation_surface_is_what_the_newest_release_still_marks(tmp_path: Path) -> None:
    def at(kind: str, symbol: str, before: str, release: str, until: str | None = None) -> Candidate:
        return Candidate(f"tiny@{release}:{kind}:{symbol}", "tiny", before, release, kind, symbol, "test",
                         evidence=(Evidence(release, "tiny/x.py", 3, "deprecated"),), symbol_kind="function",
                         until=until)

    candidates = [
        at("deprecation-begins", "tiny.gone", "1.0", "1.1", until="1.2"),  # removed in 1.2: not on the surface
        at("symbol-removed", "tiny.gone", "1.1", "1.2"),
        at("deprecation-begins", "tiny.back", "1.1", "1.2"),  # removed, then restored: marked again
        at("symbol-removed", "tiny.back", "1.0", "1.1", until="1.2"),
        at("deprecation-begins", "tiny.kept", "1.0", "1.1"),
        at("deprecation-begins", "tiny.internal", "1.1", "1.2"),
        at("deprecation-begins", "tiny.later", "1.2", "1.3"),  # after the release asked about
    ]
    root = tmp_path / "knowledge"
    harvest = root / "tiny" / "harvest"
    harvest.mkdir(parents=True)
    for before, after in (("1.0", "1.1"), ("1.1", "1.2"), ("1.2", "1.3")):
        pair = [c for c in candidates if c.release == after]
        (harvest / f"{before}..{after}.toml").write_text(pair_text("tiny", before, after, pair), "utf-8")
    (harvest / "waivers.toml").write_text('[[waive]]\npattern = "tiny.internal"\nreason = "internal"\n', "utf-8")
    entry = CURATED.replace('covers = ["tiny@2.0:symbol-removed:tiny.gone"]',
                            'covers = ["tiny@1.1:deprecation-begins:tiny.kept"]').replace('"2.0"', '"1.1"')
    (root / "tiny" / "1.1").mkdir()
    (root / "tiny" / "1.1" / "kept.toml").write_text(entry.lstrip(), "utf-8")
    result = coverage(root, "tiny", KnowledgeBase.load(root).entries)
    assert result.newest() == "1.3"
    assert result.live("1.2") == {"tiny.back": "generated", "tiny.internal": "waived", "tiny.kept": "covered"}
    assert result.live("1.3")["tiny.later"] == "generated"
    surface = json.loads(runner_coverage(root))["packages"][0]["deprecations"]
    assert surface == {"release": "1.3", "symbols": 4, "covered": 1, "generated": 2, "waived": 1, "open": 0,
                       "share": 33}


def runner_coverage(root: Path) -> str:
    result = CliRunner().invoke(app, ["kb", "coverage", "--knowledge", str(root), "-f", "json"])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_deprecation_ends_where_the_code_stops_warning() -> None:
    from auditor.harvest.candidates import compare
    from auditor.harvest.related import restored

    warns = {"tiny/__init__.py": "import warnings\n\ndef step(x, verbose=None):\n    if verbose is not None:\n"
                                 "        warnings.warn('verbose is deprecated', FutureWarning)\n    return x\n"}
    quiet = {"tiny/__init__.py": "def step(x, verbose=None):\n    return x\n"}
    releases = [release(quiet, "1.0"), release(warns, "1.1"), release(warns, "1.2"), release(quiet, "1.3")]
    found = restored([c for a, b in zip(releases, releases[1:]) for c in compare(a, b)], releases)
    (begins,) = [c for c in found if c.kind == "deprecation-begins"]
    assert (begins.release, begins.until) == ("1.1", "1.3")
