from __future__ import annotations

import sys

import pytest

from auditor.errors import UsageError
from auditor.probe.interpreters import discover, query, resolve


def test_the_running_interpreter_comes_first_and_each_minor_once() -> None:
    found = discover()
    assert found[0].path == sys.executable
    minors = [i.minor for i in found]
    assert len(minors) == len(set(minors))
    assert all(i.key[:2] >= (3, 7) for i in found)


def test_a_version_or_a_path_names_an_interpreter() -> None:
    current = "{}.{}".format(*sys.version_info[:2])
    assert resolve(current).minor == current
    assert resolve(sys.executable).version == "{}.{}.{}".format(*sys.version_info[:3])


def test_an_interpreter_that_does_not_exist_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no such interpreter: /nonexistent/python3"):
        resolve("/nonexistent/python3")
    with pytest.raises(UsageError, match="no Python 2.1 found"):
        resolve("2.1")
    assert query("/nonexistent/python3") is None
