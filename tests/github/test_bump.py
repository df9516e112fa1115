import pytest

from auditor.github.bump import Bump, from_metadata, parse_bump

RENOVATE_BODY = """This PR contains the following updates:

| Package | Change | Age | Confidence |
|---|---|---|---|
| [torch](https://pytorch.org/) ([source](https://github.com/pytorch/pytorch)) | `==2.5.1` -> `==2.6.0` | [![age](https://x)](https://y) | [![confidence](https://x)](https://y) |

---

### Release Notes
<!--renovate-debug:eyJ9-->
"""

GROUPED_BODY = """Bumps the pip group with 2 updates in the / directory: [torch](https://github.com/pytorch/pytorch) and [numpy](https://github.com/numpy/numpy).

Updates `torch` from 2.1.1 to 2.2.0
- [Release notes](https://github.com/pytorch/pytorch/releases)

Updates `numpy` from 1.26.0 to 1.26.4
"""


@pytest.mark.parametrize(
    ("title", "body", "author", "bot", "bumps"),
    [
        ("Bump torch from 1.12.1 to 1.13.0", "", "dependabot[bot]", "dependabot", [("torch", "1.12.1", "1.13.0")]),
        ("build(deps): bump torch from 2.1.1 to 2.2.0 in /server", "", "", "dependabot", [("torch", "2.1.1", "2.2.0")]),
        ("Bump torch from 2.1.1 to 2.2.0",
         "Bumps [torch](https://github.com/pytorch/pytorch) from 2.1.1 to 2.2.0.\n- [Release notes](…)", "",
         "dependabot", [("torch", "2.1.1", "2.2.0")]),
        ("Update torch requirement from <2.0,>=1.12 to >=1.12,<2.2", "", "", "dependabot",
         [("torch", "<2.0,>=1.12", ">=1.12,<2.2")]),
        ("Bump the pip group across 1 directory with 2 updates", GROUPED_BODY, "dependabot[bot]", "dependabot",
         [("torch", "2.1.1", "2.2.0"), ("numpy", "1.26.0", "1.26.4")]),
        ("Update dependency torch to v2.6.0", RENOVATE_BODY, "renovate[bot]", "renovate", [("torch", "==2.5.1", "==2.6.0")]),
        ("chore(deps): update dependency torch to v2.6.0", "", "", "renovate", [("torch", None, "2.6.0")]),
        ("Update dependency PyTorch_Lightning to v2.1.0", "", "", "renovate", [("pytorch-lightning", None, "2.1.0")]),
        ("Fix a typo in the README", "", "someone", None, []),
    ],
)
def test_titles_and_bodies(title, body, author, bot, bumps):
    info = parse_bump(title, body, author)
    assert info.bot == bot
    assert [(b.package, b.old, b.new) for b in info.bumps] == bumps
    assert not info.maintenance


@pytest.mark.parametrize("title", ["Lock file maintenance", "chore(deps): lock file maintenance"])
def test_lock_file_maintenance(title):
    info = parse_bump(title, "", "renovate[bot]")
    assert info.maintenance and info.bot == "renovate"
    assert "lock file maintenance" in (info.describe() or "")


def test_grouped_bump_is_described_with_its_group():
    info = parse_bump("Bump the pip group across 1 directory with 2 updates", GROUPED_BODY)
    assert info.group == "pip"
    assert info.describe() == "Dependabot bumps torch 2.1.1 -> 2.2.0, numpy 1.26.0 -> 1.26.4 (group pip)"


def test_exact_versions_only():
    assert Bump("torch", "==2.5.1", "==2.6.0").versions() is not None
    assert Bump("torch", "<2.0,>=1.12", ">=1.12,<2.2").versions() is None
    assert Bump("torch", None, "2.6.0").versions() is None


def test_fetch_metadata():
    assert from_metadata("torch", "1.12.1", "1.13.0") == (Bump("torch", "1.12.1", "1.13.0"),)
    # one version pair for several packages is ambiguous: keep the names only
    assert from_metadata("torch, numpy", "1.12.1", "1.13.0") == (Bump("torch", None, None), Bump("numpy", None, None))
    assert from_metadata("", "", "") == ()


def test_requirement_updates_are_ranges_and_versions_are_not():
    update = Bump("torch", "<2.0,>=1.12", ">=1.12,<2.2")
    assert update.versions() is None
    assert [str(r) for r in update.ranges()] == ["<2.0,>=1.12", "<2.2,>=1.12"]
    assert Bump("torch", "1.12.1", "1.13.0").ranges() is None
    assert Bump("torch", None, "2.6.0").ranges() is None
