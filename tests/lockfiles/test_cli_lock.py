"""`auditor lock show` and `lock diff` through the CLI: JSON per the contract, exit 2 on bad input."""

import json
from pathlib import Path

import pytest
from lockfixtures import LOCKS
from typer.testing import CliRunner

from auditor.cli import app

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_lock_show_json_follows_the_contract() -> None:
    result = run("lock", "show", LOCKS / "poetry/lock-2.1-groups/poetry.lock", "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["schema_version"] == "1" and document["format"] == "poetry.lock"
    assert document["path"].endswith("poetry.lock")
    torch = [p for p in document["packages"] if p["name"] == "torch"]
    assert [(p["version"], p["marker"], p["source"], p["groups"]) for p in torch] == [
        ("2.5.1+cpu", 'sys_platform == "linux"', "https://download.pytorch.org/whl/cpu", ["main"]),
        ("2.5.1", 'sys_platform == "darwin"', None, ["main"]),
    ]
    assert document["unpinned"] == []
    assert (
        result.stdout
        == run("lock", "show", LOCKS / "poetry/lock-2.1-groups/poetry.lock", "-f", "json").stdout
    )


def test_lock_show_says_an_input_is_not_a_lock() -> None:
    result = run("lock", "show", LOCKS / "requirements/requirements.in")
    assert result.exit_code == 0
    assert (
        "is not a lock: 3 package(s) unpinned: torch (<2,>=1.12), torchvision, numpy (<2)"
        in result.stdout
    )
    document = json.loads(
        run("lock", "show", LOCKS / "requirements/requirements.in", "-f", "json").stdout
    )
    assert document["unpinned"] == ["torch", "torchvision", "numpy"]


def test_format_in_forces_the_reader(tmp_path: Path) -> None:
    target = tmp_path / "server.lock"
    target.write_text((LOCKS / "uv/forks-old/uv.lock").read_text())
    result = run("lock", "show", target, "--format-in", "uv.lock", "-f", "json")
    assert json.loads(result.stdout)["format"] == "uv.lock"


def test_lock_diff_json_has_transitions_packages_and_environment() -> None:
    result = run(
        "lock", "diff", LOCKS / "uv/forks-old/uv.lock", LOCKS / "uv/forks-new/uv.lock", "-f", "json"
    )
    assert result.exit_code == 1, result.output  # the CUDA build change is a medium finding
    document = json.loads(result.stdout)
    assert document["schema_version"] == "1" and document["tool"]["name"] == "auditor"
    assert [t for t in document["transitions"] if t["package"] == "torch"] == [
        {
            "package": "torch",
            "from": "2.6.0+cu124",
            "to": "2.7.0+cu128",
            "direction": "upgrade",
            "environment": 'sys_platform != \"darwin\"',
            "variant": "linux and windows",
        },
        {
            "package": "torch",
            "from": "2.6.0",
            "to": "2.7.0",
            "direction": "upgrade",
            "environment": 'sys_platform == \"darwin\"',
            "variant": "macOS",
        },
    ]
    numpy = document["packages"][-1]
    assert {
        k: numpy[k] for k in ("package", "from", "to", "direction", "environment", "changes")
    } == {
        "package": "numpy",
        "from": "1.26.4",
        "to": "2.2.6",
        "direction": "upgrade",
        "environment": None,
        "changes": ["upgraded"],
    }
    assert [e["kind"] for e in document["environment"]] == ["cuda-build-changed"]


def test_lock_diff_platform_option() -> None:
    result = run(
        "lock",
        "diff",
        LOCKS / "uv/forks-old/uv.lock",
        LOCKS / "uv/forks-new/uv.lock",
        "--platform",
        "darwin",
        "-f",
        "json",
    )
    document = json.loads(result.stdout)
    assert [t["to"] for t in document["transitions"] if t["package"] == "torch"] == ["2.7.0"]
    assert document["environment"] == []


def test_lock_diff_text_names_how_each_package_changed() -> None:
    result = run(
        "lock",
        "diff",
        LOCKS / "conda/export/environment.yml",
        LOCKS / "conda/export/environment-new.yml",
    )
    assert "torchvision: 0.15.2 -> 0.15.2 (build) build py310_cu118 -> py310_cu121" in result.stdout
    assert "high: " in result.stdout and "torchvision 0.15.2 was built for another torch than 2.1.0" in result.stdout
    assert "environment-new.yml:13: torch 2.0.1 -> 2.1.0 moves from CUDA 11 to CUDA 12 (cu118 -> cu121)" in result.stdout


def test_compare_takes_the_platform_option(tmp_path: Path) -> None:
    result = run(
        "compare",
        LOCKS / "uv/forks-old/uv.lock",
        LOCKS / "uv/forks-new/uv.lock",
        "--platform",
        "darwin",
        "-f",
        "json",
        "--fail-on",
        "none",
    )
    assert result.exit_code == 0, result.output
    transitions = json.loads(result.stdout)["transitions"]
    assert [t["environment"] for t in transitions if t["package"] == "torch"] == [
        'sys_platform == \"darwin\"'
    ]


BAD = [
    ("bad/truncated-pipfile/Pipfile.lock", ":26: invalid JSON"),
    ("bad/invalid-poetry/poetry.lock", ":6: invalid TOML"),
    ("bad/conflict-uv/uv.lock", ":7: unresolved merge conflict marker"),
    ("bad/unknown/settings.ini", ":1: unknown lock format"),
    ("requirements/cycle/requirements.txt", "more.txt:3: include cycle"),
]


@pytest.mark.parametrize(("fixture", "message"), BAD)
def test_bad_input_exits_2_with_one_line(fixture: str, message: str) -> None:
    result = run("lock", "show", LOCKS / fixture)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_binary_oversized_and_missing_files(tmp_path: Path) -> None:
    binary = tmp_path / "uv.lock"
    binary.write_bytes(b"version = 1\n\x00\x01\x02")
    huge = tmp_path / "requirements.txt"
    with huge.open("wb") as handle:
        handle.truncate(65 * 1024 * 1024)
    for target, message in (
        (binary, "binary file"),
        (huge, "larger than 64 MB"),
        (tmp_path / "nope.lock", "cannot read"),
    ):
        result = run("lock", "show", target)
        assert (
            result.exit_code == 2 and message in result.stderr and "Traceback" not in result.stderr
        )


def test_diff_of_a_bad_lock_exits_2() -> None:
    result = run("lock", "diff", LOCKS / "uv/forks-old/uv.lock", LOCKS / "bad/conflict-uv/uv.lock")
    assert result.exit_code == 2 and "conflict-uv/uv.lock:7:" in result.stderr


def test_lock_diff_fail_on_sets_the_exit_code() -> None:
    args = ("lock", "diff", LOCKS / "uv/forks-old/uv.lock", LOCKS / "uv/forks-new/uv.lock")
    assert run(*args, "--fail-on", "high").exit_code == 0
    assert run(*args, "--fail-on", "medium").exit_code == 1
    assert run(*args, "--platform", "darwin").exit_code == 0  # no finding on macOS


@pytest.mark.parametrize("command", ["show", "diff", "compare"])
def test_output_onto_an_input_is_refused_and_leaves_it_alone(tmp_path: Path, command: str) -> None:
    old, new = tmp_path / "old.txt", tmp_path / "requirements.txt"
    old.write_text("torch==2.5.1\n")
    new.write_text("torch==2.6.0\n")
    args = ["lock", "show", new] if command == "show" else ["lock", "diff", old, new]
    if command == "compare":
        args = ["compare", old, new]
    # the same file under another spelling of its path
    result = run(*args, "--output", tmp_path / "sub" / ".." / "requirements.txt")
    assert result.exit_code == 2
    assert "--output names an input of this command" in result.output
    assert new.read_text() == "torch==2.6.0\n"


def test_output_elsewhere_is_written(tmp_path: Path) -> None:
    lock, report = tmp_path / "requirements.txt", tmp_path / "report.txt"
    lock.write_text("torch==2.6.0\n")
    assert run("lock", "show", lock, "--output", report).exit_code == 0
    assert "torch 2.6.0" in report.read_text()


TOKEN = "s3cr3t-t0ken-value"


def test_url_secrets_are_redacted_in_lock_show_and_diff(tmp_path: Path) -> None:
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text(f"torch @ https://builder:{TOKEN}@wheels.example.com/torch-2.5.1-cp311-cp311-linux_x86_64.whl\n")
    new.write_text(
        "torch @ https://wheels.example.com/torch-2.6.0-cp311-cp311-linux_x86_64.whl"
        f"?access_token={TOKEN}&expires=1700000000\n"
    )
    outputs = [
        run("lock", "show", new),
        run("lock", "show", new, "-f", "json"),
        run("lock", "diff", old, new),
        run("lock", "diff", old, new, "-f", "json"),
        run("compare", old, new, "-f", "json"),
    ]
    for result in outputs:
        assert result.exit_code in (0, 1), result.output
        assert TOKEN not in result.output
    assert "torch-2.6.0-cp311-cp311-linux_x86_64.whl?access_token=***&expires=***" in outputs[0].stdout
    assert "https://***@wheels.example.com/" in outputs[2].stdout


def test_url_secrets_are_redacted_in_errors(tmp_path: Path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_text(f"-r https://example.com/reqs.txt?token={TOKEN}\n")
    result = run("lock", "show", target)
    assert result.exit_code == 2
    assert TOKEN not in result.output and "token=***" in result.output


def test_redaction_reads_each_url_once() -> None:
    from time import process_time

    from auditor.errors import redact

    hostile = "a://" * 20_000 + " ?"  # 16 s when each later `a://` was tried to the word's end
    start = process_time()  # CPU: a guard against quadratic matching, not a speed figure
    assert redact(hostile) == hostile
    assert process_time() - start < 2
