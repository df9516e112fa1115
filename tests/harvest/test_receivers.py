"""Methods of classes other than Tensor, and new defaults of None: what the harvest reads from
two small wheels, what it generates, waives or leaves open, and what the scanner matches."""

from __future__ import annotations

from pathlib import Path

from auditor import pipeline
from auditor.harvest.candidates import compare
from auditor.harvest.coverage import stand
from auditor.harvest.generate import Open, matches, spec_change
from auditor.harvest.model import Candidate
from auditor.harvest.run import harvest_wheel
from auditor.harvest.shipped import pair_text, read_candidates
from auditor.knowledge.base import KnowledgeBase
from tests.harvest.wheels import write_wheel

OLD = {
    "torch/__init__.py": "from .streams import Stream, Event\nfrom .io import load, save, connect, pick, grad\nfrom . import nn\n",
    "torch/streams.py": '''
class Stream:
    def priority(self):
        return 0

    def query(self):
        return True

class Script:
    def save(self, f):
        pass

class Event:
    def ipc_handle(self):
        pass
''',
    "torch/io.py": '''
def load(f, pickle_module=pickle):
    return f

def save(obj, f, protocol=2):
    return obj

def connect(addr, group=WORLD, timeout=default_timeout, backend="gloo"):
    return addr

def pick(x, collate=default_collate):
    return x

def grad(x, allow_unused=False, bucket=25):
    return x
''',
    "torch/nn/__init__.py": "from .modules.module import Module\nfrom .modules.gru import GRU, Attention\n",
    "torch/nn/modules/__init__.py": "",
    "torch/nn/modules/module.py": '''
class Module:
    def __getattr__(self, name):
        return self._modules[name]
''',
    "torch/nn/modules/gru.py": '''
from .module import Module

class GRU(Module):
    def forward_impl(self, x):
        return x

class Attention(Module):
    def forward(self, q, k, v, static_kv=False):
        return q
''',
}
NEW = {
    **OLD,
    "torch/streams.py": '''
import torch._C

class Event(torch._C._EventBase):
    pass

class Stream:
    def query(self):
        return True

class Script:
    def __getattr__(self, name):
        return getattr(self._actual, name)
''',
    "torch/io.py": '''
def load(f, pickle_module=None):
    if pickle_module is None:
        pickle_module = pickle
    return f

def save(obj, f, protocol=None):
    protocol = 4 if protocol is None else protocol
    return obj

def connect(addr, group=None, timeout=None, backend="gloo"):
    if group is None:
        default = _default_group()
    if timeout is None:
        timeout = _default_timeout(backend)
    return addr

def pick(x, collate=None):
    if collate is None:
        if batched:
            collate = default_collate
        else:
            collate = default_convert
    return x

def grad(x, allow_unused=None, materialize=False, bucket=None):
    if allow_unused is None:
        allow_unused = materialize
    if bucket is None:
        bucket, default = 25, True
    else:
        default = False
    return x
''',
    "torch/nn/modules/gru.py": '''
from .module import Module

class GRU(Module):
    pass

class Attention(Module):
    def forward(self, q, k, v):
        return q
''',
}


def harvested(tmp_path: Path) -> dict[str, Candidate]:
    releases = []
    for version, files in (("1.0.0", OLD), ("1.1.0", NEW)):
        wheel = write_wheel(tmp_path, "torch", version, files, "macosx_11_0_arm64")
        releases.append(harvest_wheel(wheel, "torch", version))
    return {c.id: c for c in compare(*releases)}


def test_a_none_default_the_body_resolves_to_the_old_value_is_waived_with_its_line(tmp_path: Path) -> None:
    found = harvested(tmp_path)
    load = found["torch@1.1.0:default-changed:torch.load:pickle_module"]
    assert load.waived == "the body resolves None to the old default (pickle_module = pickle, torch/io.py:3)"
    assert stand(load, {}, []).state == "waived"
    # another parameter put in for None: its default, the old one here
    grad = found["torch@1.1.0:default-changed:torch.grad:allow_unused"]
    assert grad.waived is not None and "allow_unused = False" in grad.waived
    # `if p is None: p, q = v, w` with an `else:` for the given argument
    bucket = found["torch@1.1.0:default-changed:torch.grad:bucket"]
    assert bucket.waived is not None and "bucket = 25" in bucket.waived
    # another value put in for None: a real change, generated as the argument left out
    save = found["torch@1.1.0:default-changed:torch.save:protocol"]
    assert save.waived is None and "the body puts 4 in for None, torch/io.py:7" in save.detail
    generated = matches(save)
    assert not isinstance(generated, Open) and generated[0].when.keyword_absent == ("protocol",)
    # None read further in, or put in only under another condition: the evidence shows nothing
    # a value that depends on another argument (the backend): not said by leaving timeout out
    timeout = found["torch@1.1.0:default-changed:torch.connect:timeout"]
    assert "a value the call does not show" in timeout.detail
    for name in ("torch@1.1.0:default-changed:torch.connect:group", "torch@1.1.0:default-changed:torch.pick:collate",
                 "torch@1.1.0:default-changed:torch.connect:timeout"):
        assert found[name].waived is None and isinstance(matches(found[name]), Open)


def test_the_harvests_waiver_ships_and_reads_back(tmp_path: Path) -> None:
    found = list(harvested(tmp_path).values())
    directory = tmp_path / "kb" / "torch" / "harvest"
    directory.mkdir(parents=True)
    (directory / "1.0.0..1.1.0.toml").write_text(pair_text("torch", "1.0.0", "1.1.0", found), "utf-8")
    back = {c.id: c for c in read_candidates(tmp_path / "kb", "torch")}
    assert back == {c.id: c for c in found}


def test_a_member_gone_from_a_class_with_getattr_is_waived_but_not_through_nn_modules(tmp_path: Path) -> None:
    found = harvested(tmp_path)
    save = found["torch@1.1.0:symbol-removed:torch.streams.Script.save"]
    assert save.waived == ("in 1.1.0, torch.streams.Script defines __getattr__ (torch/streams.py:11): "
                           "the member may still be reached")
    # a base in the package that no source or stub defines (a C class) may hold the member
    event = found["torch@1.1.0:symbol-removed:torch.Event.ipc_handle"]
    assert event.waived is not None and "derives from torch._C._EventBase" in event.waived
    # nn.Module's __getattr__ finds parameters, buffers and submodules, never a method
    gru = found["torch@1.1.0:symbol-removed:torch.nn.GRU.forward_impl"]
    assert gru.waived is None
    priority = found["torch@1.1.0:symbol-removed:torch.Stream.priority"]
    assert priority.waived is None


def test_a_method_of_another_class_is_matched_only_on_a_receiver_of_that_class(tmp_path: Path) -> None:
    found = harvested(tmp_path)
    picked = [found["torch@1.1.0:symbol-removed:torch.Stream.priority"],
              found["torch@1.1.0:parameter-removed:torch.nn.Attention.forward:static_kv"]]
    changes = []
    for c in picked:
        made = matches(c)
        assert not isinstance(made, Open) and made[0].call == c.symbol and made[0].method == ()
        changes.append(spec_change(c, made))
    project = tmp_path / "project"
    project.mkdir()
    (project / "run.py").write_text(
        "import torch\n"
        "from typing import List\n"
        "from torch import nn\n"
        "class Mine:\n"
        "    def priority(self):\n"
        "        return 1\n"
        "def main(s2: torch.Stream, many: List[torch.Stream], x):\n"
        "    s = torch.Stream()\n"
        "    s.priority()\n"            # 9: a Stream constructed in view
        "    s2.priority()\n"           # 10: annotated
        "    Mine().priority()\n"       # 11: the project's class, same method name
        "    x.priority()\n"            # 12: unknown receiver
        "    many.priority()\n"         # 13: a list of streams is not a stream
        "    s.query()\n"               # 14: a method that stays
        "    attn = nn.Attention()\n"
        "    attn(1, 2, 3, static_kv=True)\n"  # 16: the module's call is its forward
        "    attn(1, 2, 3)\n"           # 17: not given
        "    attn.forward(1, 2, 3, static_kv=True)\n"  # 18: forward called by name
        "    gru = nn.GRU()\n"
        "    gru(1, 2, 3, static_kv=True)\n",  # 20: another module's call
        "utf-8")
    result = pipeline.scan(project, "1.0.0", "1.1.0", KnowledgeBase(tuple(changes)))
    assert sorted((f.symbol, f.line) for f in result.findings) == [
        ("torch.Stream.priority", 9), ("torch.Stream.priority", 10),
        ("torch.nn.Attention.forward", 16), ("torch.nn.Attention.forward", 18)]
