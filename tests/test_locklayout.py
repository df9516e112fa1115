"""Which paths are locks, and which folder of code each lock governs."""

import pytest

from auditor.locklayout import DECLARED, LOCK, PINNED_LIST, Scopes, Tree, lock_name


@pytest.mark.parametrize(("path", "kind", "fallback"), [
    ("uv.lock", LOCK, None), ("sub/poetry.lock", LOCK, None), ("conda-lock.yml", LOCK, None),
    ("pylock.dev.toml", LOCK, None), ("Pipfile.lock", LOCK, None),
    ("requirements.txt", PINNED_LIST, None), ("requirements-dev.in", PINNED_LIST, None),
    ("constraints.txt", PINNED_LIST, None), ("environment-gpu.yml", PINNED_LIST, None),
    ("requirements/base.txt", PINNED_LIST, "requirements.txt"), ("svc/reqs/prod.txt", PINNED_LIST, "requirements.txt"),
    ("requirements/ci/gpu.in", PINNED_LIST, "requirements.txt"), ("deps.txt", PINNED_LIST, "requirements.txt"),
    ("requirements-dev.lock", PINNED_LIST, "requirements.txt"), ("pyproject.toml", DECLARED, None),
    ("setup.py", DECLARED, None), ("pkg/setup.cfg", DECLARED, None),
])
def test_lock_names(path, kind, fallback):
    found = lock_name(path)
    assert found is not None and (found.kind, found.fallback) == (kind, fallback)


@pytest.mark.parametrize("path", ["README.md", "docs/notes.txt", "version.txt", "Cargo.lock", "requirements/README.md",
                                  "setup.pyc", "train.py"])
def test_not_lock_names(path):
    assert lock_name(path) is None


TREE = Tree([
    "pyproject.toml", "src/app/model.py", "docker/requirements.txt", "services/vision/infer.py",
    "services/vision/requirements/base.txt", "services/legacy/pyproject.toml", "services/legacy/lock/uv.lock",
    "services/legacy/serve.py", "tools/ci/requirements.txt",
])


@pytest.mark.parametrize(("lock", "folder"), [
    ("requirements.txt", ""),
    ("docker/requirements.txt", ""),  # no code beside it: the project around it
    ("services/vision/requirements/base.txt", "services/vision"),  # requirements/ stands for its folder
    ("services/legacy/lock/uv.lock", "services/legacy"),  # no code in lock/: the nearest pyproject.toml
    ("tools/ci/requirements.txt", ""),
])
def test_project_folder(lock, folder):
    assert TREE.project_folder(lock) == folder


def test_the_deepest_lock_naming_the_package_governs():
    scopes = Scopes.of({"requirements.txt": frozenset({"torch", "numpy"}),
                        "services/vision/requirements/base.txt": frozenset({"torch"}),
                        "services/vision/docs/requirements.txt": frozenset({"sphinx"})}, TREE)
    assert scopes.governing("services/vision/infer.py", "torch") == ("services/vision/requirements/base.txt",)
    assert scopes.governing("services/vision/infer.py", "numpy") == ("requirements.txt",)
    assert scopes.governing("services/vision/docs/conf.py", "torch") == ("services/vision/requirements/base.txt",)
    assert scopes.governing("src/app/model.py", "torch") == ("requirements.txt",)
    assert scopes.governing("src/app/model.py", "scipy") == ()
    assert scopes.several()


def test_settings_replace_the_folders_and_a_lone_root_lock_is_no_scoping():
    locks = {"services/vision/requirements/base.txt": frozenset({"torch"})}
    given = Scopes.of(locks, TREE, {"services/vision/requirements/base.txt": ("services/vision", "shared")})
    assert given.governing("shared/util.py", "torch") == ("services/vision/requirements/base.txt",)
    assert given.describe("services/vision/requirements/base.txt") == "services/vision/, shared/"
    assert not Scopes.of({"requirements.txt": frozenset({"torch"})}, TREE).several()
