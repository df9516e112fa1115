"""The 2.13.0 deprecation-surface figure: the public symbols torch 2.13.0's own code marks
deprecated or removed (the harvest's plain deprecation sites of 2.13.0, as /tmp/fig213.py), and
how many of them a curated entry (its symbols, or a candidate its `covers` names) or a generated
change (a candidate of a release pair up to 2.13.0 in state "generated") reaches."""
import sys
from collections import Counter
from pathlib import Path

from packaging.version import Version

from auditor.harvest import cache
from auditor.harvest.candidates import plain_sites
from auditor.harvest.coverage import coverage
from auditor.knowledge.loader import default_directory, load_entries

root = default_directory()
kept = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.home() / ".cache/auditor/harvest"  # a --cache-dir
try:
    r = cache.load(kept, "torch", "2.13.0")  # `auditor kb harvest` fills it
except ValueError as exc:  # a surface of an older harvest format, say
    sys.exit(f"{exc}: run `auditor kb harvest --package torch --from 2.12.1 --to 2.13.0` again")
if r is None:
    sys.exit("no cached surface of torch 2.13.0: run `auditor kb harvest --package torch --from 2.12.1 --to 2.13.0` first")
marked = {s.symbol for s in plain_sites(r)}
entries = tuple(e for e in load_entries(root))
torch_entries = [e for e in entries if e.package == "torch"]
by_symbols = {s for e in torch_entries for s in e.symbols} & marked
cov = coverage(root, "torch", entries)
upto = [s for s in cov.standings if Version(s.candidate.release) <= Version("2.13.0")]
by_covers = {s.candidate.symbol for s in upto if s.state == "covered"} & marked
generated = {s.candidate.symbol for s in upto if s.state == "generated"} & marked
curated = by_symbols | by_covers
both = curated | generated


def pct(n: int) -> str:
    return f"{100 * n / len(marked):.0f} %"


print(f"torch 2.13.0 marks {len(marked)} public symbols deprecated or removed")
print(f"  curated entry names it (symbols): {len(by_symbols)} ({pct(len(by_symbols))})")
print(f"  curated entry covers a candidate of it: {len(by_covers)} ({pct(len(by_covers))})")
print(f"  curated, either way: {len(curated)} ({pct(len(curated))})")
print(f"  a generated change of a release up to 2.13.0: {len(generated)} ({pct(len(generated))})")
print(f"  curated or generated: {len(both)} ({pct(len(both))}); neither: {len(marked - both)}")
if "-v" in sys.argv:
    for s in sorted(marked - both): print("   -", s)
states = {}
for s in upto:
    states.setdefault(s.candidate.symbol, set()).add(s.state)
print("  neither, by the states of its candidates:", Counter(
    "+".join(sorted(states.get(sym, {"no candidate"}))) for sym in marked - both))
