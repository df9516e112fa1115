"""Requirements files by pip's rules, pip-compile and `uv pip compile` output, includes."""

import pytest
from lockfixtures import LOCKS, pins, read, versions
from packaging.version import Version

from auditor.errors import LockfileError
from auditor.lockfiles.requirements import parse


def test_pip_compile_output_with_hashes_and_via_annotations() -> None:
    lock = read("requirements/compiled/requirements.txt")
    assert lock.format == "requirements.txt"
    assert versions(lock) == {
        "filelock": "3.12.2",
        "jinja2": "3.1.2",
        "numpy": "1.25.2",
        "torch": "2.0.1+cu118",
        "torchvision": "0.15.2+cu118",
        "triton": "2.0.0",
    }
    assert (
        pins(lock, "triton")[0].marker
        == 'platform_system == "Linux" and platform_machine == "x86_64"'
    )
    assert pins(lock, "torch")[0].line == 21  # the first line of the continued requirement


def test_uv_pip_compile_output_keeps_the_index_as_source() -> None:
    lock = read("requirements/compiled/uv-compile.txt")
    torch = pins(lock, "torch")[0]
    assert torch.version == Version("2.2.1+cu121")
    assert torch.source == "https://download.pytorch.org/whl/cu121"


def test_pip_rules_one_trap_a_line() -> None:
    path = LOCKS / "requirements/options.txt"
    lock = parse(path, path.read_text(), env={"REQUESTS_VERSION": "2.31.0"})
    found = versions(lock)
    assert pins(lock, "torch")[0].marker == 'python_version >= "3.9" and python_version < "3.13"'
    assert found["pillow"] == "10.0.1"  # extras
    assert found["zope-interface"] == "6.0"  # trailing comment
    assert found["numpy"] == "1.26.0"  # continued --hash
    assert found["scipy"] == "1.11.3"  # per-line --hash and --config-settings
    assert found["sentencepiece"] == "0.1.99"
    assert "this-line-is-swallowed-by-the-comment" not in found  # `# \` continues into the comment
    assert found["requests"] == "2.31.0"  # ${VAR}
    assert found["accelerate"] == "<1,>=0.20" and found["safetensors"] is None  # unpinned, reported
    assert found["torchaudio"] == "2.0.2+cu118"  # a bare wheel URL
    assert (
        pins(lock, "visionkit")[0].source
        == "git+https://github.com/example/visionkit.git@5d1e6f0c#egg=visionkit"
    )


def test_an_unset_variable_leaves_the_package_unpinned() -> None:
    path = LOCKS / "requirements/options.txt"
    requests = pins(parse(path, path.read_text(), env={}), "requests")[0]
    assert requests.version is None and requests.specifier == "requests==${REQUESTS_VERSION}"


def test_includes_are_relative_to_the_including_file_and_constraints_pin() -> None:
    lock = read("requirements/include/requirements.txt")
    assert versions(lock) == {
        "torch": "2.1.2",
        "numpy": "1.26.3",
        "pytest": "7.4.4",
        "torchvision": "0.16.2",
    }
    assert len(pins(lock, "torch")) == 1  # base.txt is reached twice


def test_include_cycles_are_errors_with_the_line() -> None:
    with pytest.raises(LockfileError) as caught:
        read("requirements/cycle/requirements.txt")
    assert caught.value.path.endswith("more.txt") and caught.value.line == 3
    assert "include cycle: requirements.txt -> more.txt -> requirements.txt" in caught.value.message


def test_a_missing_include_names_the_including_line(tmp_path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_text("torch==2.1.0\n-r missing.txt\n")
    with pytest.raises(LockfileError) as caught:
        parse(target, target.read_text())
    assert (caught.value.line, caught.value.message) == (2, "included file not found: missing.txt")


def test_a_bad_requirement_is_an_error_with_its_line(tmp_path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_text("torch==2.1.0\nnumpy==1.26.0 )\n")
    with pytest.raises(LockfileError) as caught:
        parse(target, target.read_text())
    assert caught.value.line == 2 and "not a requirement" in caught.value.message


def test_requirements_in_ranges_are_unpinned() -> None:
    lock = read("requirements/requirements.in")
    assert {p.name: p.specifier for p in lock.unpinned()} == {
        "torch": "<2,>=1.12",
        "torchvision": None,
        "numpy": "<2",
    }


def test_uv_universal_output_pins_torch_once_per_environment() -> None:
    lock = read("requirements/compiled/uv-universal.txt")
    assert {str(p.version): p.marker for p in pins(lock, "torch")} == {
        "2.5.1": 'sys_platform == \"darwin\"',
        "2.5.1+cu124": 'sys_platform != \"darwin\"',
    }
    assert all(p.source is None for p in lock.pins)  # PyPI is the --index-url


def test_per_cuda_requirement_files_with_a_shared_include() -> None:
    old = read("requirements/serve-style/torch_cu117_linux.txt")
    assert old.format == "requirements.txt"
    assert versions(old) == {
        "captum": "0.6.0",
        "packaging": "23.1",
        "pynvml": "11.5.0",
        "torch": "2.0.0+cu117",
        "torchvision": "0.15.1+cu117",
        "torchaudio": "2.0.1+cu117",
    }
    assert pins(old, "torch")[0].marker == 'sys_platform == "linux"'


def test_a_10_mb_file_parses_every_pin(tmp_path) -> None:
    target = tmp_path / "requirements.txt"
    block = "".join(
        f"package-{n:06d}=={n % 9}.{n % 7}.0 \\\n    --hash=sha256:{n:064x}\n    # via torch\n"
        for n in range(100_000)
    )
    target.write_text(block)
    assert target.stat().st_size > 10 * 1024 * 1024
    lock = parse(target, target.read_text())
    assert (
        len(lock.pins) == 100_000 and str(lock.pins[-1].version) == f"{99_999 % 9}.{99_999 % 7}.0"
    )
