"""The `[fix]` table of a knowledge entry: a good one loads typed; a bad one is a problem that
names the file, the line and the field, and the CLI turns it into exit 2."""

from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from auditor.errors import KnowledgeError
from auditor.fix.spec import Fix, Transform
from auditor.knowledge.loader import default_directory, load_entries

SEED = default_directory() / "torch" / "1.13" / "floor-divide-rounds-toward-floor" / "change.toml"
BASE = SEED.read_text().split("\n[[fix.")[0]  # the entry without its shipped fix

GOOD = """
[fix]
probe = true

[[fix.keep_old]]
on = "call"
action = "set-keyword"
keyword = "rounding_mode"
value = "'trunc'"
requires = ">=1.8"
note = "keeps truncation"
max_positional = 2
proven_keywords = ["out"]

[[fix.keep_old]]
on = "operator"
action = "template"
template = "torch.div({left}, {right}, rounding_mode='trunc')"
augmented = "{left}.div_({right}, rounding_mode='trunc')"

[[fix.adopt_new]]
on = "call"
action = "rename-call"
to = "torch.div"
prepend = ["1"]
max_positional = 1
proven_keywords = []
"""


def _load(tmp_path: Path, fix: str) -> list[str]:
    (tmp_path / "entry.toml").write_text(BASE + fix)
    with pytest.raises(KnowledgeError) as caught:
        load_entries(tmp_path)
    return caught.value.problems


def test_a_good_fix_table_loads_typed(tmp_path: Path) -> None:
    (tmp_path / "entry.toml").write_text(BASE + GOOD)
    [entry] = load_entries(tmp_path)
    assert entry.fix == Fix(
        keep_old=(
            Transform(on="call", action="set-keyword", keyword="rounding_mode", value="'trunc'",
                      requires=SpecifierSet(">=1.8"), note="keeps truncation", max_positional=2, proven_keywords=("out",)),
            Transform(on="operator", action="template",
                      template="torch.div({left}, {right}, rounding_mode='trunc')",
                      augmented="{left}.div_({right}, rounding_mode='trunc')"),
        ),
        adopt_new=(Transform(on="call", action="rename-call", to="torch.div", prepend=("1",), max_positional=1, proven_keywords=()),),
    )
    assert entry.fix.transforms("adopt-new") == entry.fix.adopt_new


@pytest.mark.parametrize("field", ["max_positional", "proven_keywords"])
def test_a_call_rewrite_without_its_proven_shapes_is_refused(tmp_path: Path, field: str) -> None:
    line = next(n for n in GOOD.splitlines() if n.startswith(field))
    problems = _load(tmp_path, GOOD.replace(line + "\n", "", 1))
    table = (BASE + GOOD).splitlines().index("[[fix.keep_old]]") + 1
    assert problems == [(f"{tmp_path.name}/entry.toml:{table}: fix.keep_old[0]: a rewrite of a call states the call shapes it was "
                         f"proven on: {field} missing (benchmarks/fixfuzz.py --shapes shows those that ran)")]


def test_an_operator_template_states_no_call_shape(tmp_path: Path) -> None:
    (tmp_path / "entry.toml").write_text(BASE + GOOD)
    [entry] = load_entries(tmp_path)
    assert entry.fix is not None and entry.fix.keep_old[1].max_positional is None  # `a // b` has no arguments to bound


def test_an_entry_without_fix_has_none(tmp_path: Path) -> None:
    (tmp_path / "entry.toml").write_text(BASE)
    [entry] = load_entries(tmp_path)
    assert entry.fix is None


def test_an_unknown_action_names_file_and_line(tmp_path: Path) -> None:
    problems = _load(tmp_path, GOOD.replace('action = "rename-call"', 'action = "rewrite"'))
    [problem] = problems
    line = (BASE + GOOD).splitlines().index('action = "rename-call"') + 1
    assert problem.startswith(f"{tmp_path.name}/entry.toml:{line}: fix.adopt_new[0].action: 'rewrite' is not one of")


def test_a_missing_field_names_the_table_line(tmp_path: Path) -> None:
    problems = _load(tmp_path, GOOD.replace('keyword = "rounding_mode"\n', ""))
    [problem] = problems
    line = (BASE + GOOD).splitlines().index("[[fix.keep_old]]") + 1
    assert problem == f"{tmp_path.name}/entry.toml:{line}: fix.keep_old[0]: 'keyword' is a required property"


def test_fields_and_shapes_an_action_does_not_read_are_problems(tmp_path: Path) -> None:
    bad = GOOD.replace('to = "torch.div"', 'to = "torch.div"\nkeyword = "x"').replace(
        'on = "operator"', 'on = "import"'
    )
    problems = "\n".join(_load(tmp_path, bad))
    assert "fix.adopt_new[0].keyword: not a field of rename-call" in problems
    assert "fix.keep_old[1].on: template cannot rewrite a import" in problems
    assert "fix.keep_old[1].augmented: only a template on an operator" in problems


def test_sources_placeholders_and_requires_are_checked(tmp_path: Path) -> None:
    bad = (
        GOOD.replace("value = \"'trunc'\"", 'value = "trunc("')
        .replace('requires = ">=1.8"', 'requires = "newer"')
        .replace("{right}, rounding_mode='trunc')\"\naug", "{receiver})\"\naug")
    )
    problems = "\n".join(_load(tmp_path, bad))
    assert "fix.keep_old[0].value: not Python" in problems
    assert "fix.keep_old[0].requires: invalid specifier 'newer'" in problems
    assert "fix.keep_old[1].template: placeholder {receiver} does not fit a operator" in problems


def test_probe_false_needs_a_reason(tmp_path: Path) -> None:
    problems = _load(tmp_path, GOOD.replace("probe = true", "probe = false"))
    assert any("fix: 'probe_reason' is a required property" in p for p in problems)


def test_kb_show_gives_the_transforms_in_text_and_json() -> None:
    import json

    from typer.testing import CliRunner

    from auditor.cli import app

    text = CliRunner().invoke(app, ["kb", "show", "torch-load-weights-only-default-true"]).output
    assert ("## Mechanical fix (`auditor fix`)\n- keep-old, call: set-keyword (keyword=`weights_only`, value=`False`, max_positional=`2`, "
            "proven_keywords=`['f', 'map_location']`); needs torch>=1.13: only for files you trust") in text
    shown = CliRunner().invoke(app, ["kb", "show", "torch-load-weights-only-default-true", "-f", "json"]).output
    assert json.loads(shown)["entry"]["fix_transforms"] == {"keep_old": [{
        "on": "call", "action": "set-keyword", "keyword": "weights_only", "value": "False", "replace": False, "max_positional": 2,
        "proven_keywords": ["f", "map_location"],
        "requires": ">=1.13", "note": "only for files you trust: unpickling runs arbitrary code",
    }], "adopt_new": []}
