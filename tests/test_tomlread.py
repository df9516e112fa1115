"""TOML a pull request may have written is bounded before the standard parser sees it."""

import time

import pytest

from auditor import tomlread
from auditor.errors import AuditorError, LockfileError

HOSTILE = {
    # 100,000 parts in one key: 21 GB in the standard parser, unbounded
    "one long key": "a" + ".a" * 100_000 + " = 1\n",
    # the same work spread over many keys of moderate length
    "many dotted keys": "".join(f"x{i}" + ".a" * 30 + " = 1\n" for i in range(20_000)),
    # inside inline tables the parser's work is quadratic in time
    "inline tables": "x = [" + ", ".join("{a" + ".a" * 60 + " = 1}" for _ in range(20_000)) + "]\n",
    # a long header makes every key below it costly
    "long header": "[a" + ".a" * 63 + "]\n" + "".join(f"k{i}.b = 1\n" for i in range(200_000)),
    # quoted parts count as parts
    "quoted parts": 'a' + '."x"' * 100 + " = 1\n",
    # a multi-line string before the key does not hide it
    "after a multi-line string": 'd = """\n"""\n' + "a" + ".a" * 100 + " = 1\n",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_keys_are_refused_quickly_with_the_line(name: str) -> None:
    start = time.process_time()  # CPU: a guard against quadratic parsing, not a speed figure
    with pytest.raises(LockfileError, match=r"pylock.toml:\d+: (TOML key with more|too many dotted)"):
        tomlread.loads(HOSTILE[name], "pylock.toml", LockfileError)
    assert time.process_time() - start < 1.0


def test_the_line_is_the_offending_key() -> None:
    text = '# a comment with a.b.c\nname = "x.y.z"\n\n' + "a" + ".a" * 70 + " = 1\n"
    with pytest.raises(AuditorError) as caught:
        tomlread.loads(text, "f.toml")
    assert caught.value.line == 4


def test_dots_inside_strings_and_comments_do_not_count() -> None:
    dotted = ".".join(["p"] * 200)
    text = f'# {dotted}\nurl = "{dotted}"\nother = \'{dotted}\'\nmulti = """\n{dotted}\n"""\n'
    assert tomlread.loads(text, "f.toml")["url"] == dotted


def test_real_dotted_keys_and_floats_parse() -> None:
    text = "[tool.ruff.lint.per-file-ignores]\n\"a.py\" = [\"E1\"]\n[x]\ny.z = 1.5\n"
    assert tomlread.loads(text, "f.toml")["x"] == {"y": {"z": 1.5}}


def test_invalid_toml_names_the_line() -> None:
    with pytest.raises(AuditorError) as caught:
        tomlread.loads("a = 1\nb = \n", "f.toml")
    assert caught.value.line == 2 and caught.value.message.startswith("invalid TOML")
