"""A rewrite laid back onto its source's line endings: every line the rewrite kept keeps its bytes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from auditor.fix.layout import plain, relaid, split_lines

body = st.text(st.sampled_from("ab \t\x0c\u2028é#"), max_size=6)
ending = st.sampled_from(["\n", "\r\n", "\r"])
sources = st.builds(
    lambda lines, last: "".join(b + e for b, e in lines) + last,
    st.lists(st.tuples(body, ending), min_size=1, max_size=12), body,
)


@given(sources)
def test_an_unchanged_source_comes_back_whole(source: str) -> None:
    assert relaid(source, plain(source)) == source


@given(sources, st.data())
def test_only_the_changed_line_differs(source: str, data: st.DataObject) -> None:
    lines = split_lines(plain(source))
    at = data.draw(st.integers(0, len(lines) - 1))
    changed = "X = 1" + ("\n" if lines[at].endswith("\n") else "")
    result = split_lines(relaid(source, "".join([*lines[:at], changed, *lines[at + 1:]])))
    original = split_lines(source)
    assert len(result) == len(original)
    for i, (old, new) in enumerate(zip(original, result)):
        if i == at:
            assert new == "X = 1" + old[len(old.rstrip("\r\n")):]  # ends as the line it replaces
        else:
            assert new == old
