from dataclasses import replace

import pytest

from auditor.report import RENDERERS, github


def test_escaping():
    assert github.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = github.command("warning", "x: y, z", file="dir/a,b.py", line=3, title="t: u")
    assert line == "::warning file=dir/a%2Cb.py,line=3,title=t%3A u::x: y, z"


def test_golden(result, golden):
    golden("github.golden", github.render(result, prefix="src/"))


def test_registered():
    assert RENDERERS["github"] is github.render


def test_levels_and_locations(result):
    lines = github.render(result).splitlines()
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    floor = [ln for ln in lines if "data/windows.py" in ln]
    assert floor[0].startswith("::error file=data/windows.py,line=14,col=5,")
    notebook = next(ln for ln in lines if "explore.ipynb" in ln)
    assert "line=" not in notebook.split("::")[1] and "cell 3, line 2" in notebook
    assert any(ln.startswith("::warning ") and "clamp" in ln for ln in lines)
    assert all("\n" not in ln[2:] for ln in lines)


@pytest.mark.parametrize("n", [36, 45])
def test_at_most_ten_per_level_with_pointer(many_findings, n):
    result = many_findings(n)
    lines = github.render(result).splitlines()
    errors = [ln for ln in lines if ln.startswith("::error ")]
    warnings = [ln for ln in lines if ln.startswith("::warning ")]
    notices = [ln for ln in lines if ln.startswith("::notice ")]
    high = sum(result.change(f.change).severity == "high" for f in result.findings)
    medium = len(result.findings) - high
    assert len(errors) == 10 and len(warnings) == 10
    assert len(notices) == 1
    assert f"{high - 10} errors, {medium - 10} warnings not shown" in notices[0]


def test_no_pointer_when_under_the_cap(result):
    assert "more findings" not in github.render(result)


def test_low_findings_leave_room_for_the_pointer(result, many_findings):
    big = many_findings(12)
    low = replace(big, changes=tuple(replace(c, severity="low") for c in big.changes))
    notices = [ln for ln in github.render(low).splitlines() if ln.startswith("::notice ")]
    assert len(notices) == 10 and "3 notices not shown" in notices[-1]
