"""The shipped entries whose fixes move names between modules (replace-module) or map literal
keyword values (map-keyword): each rewrites real code, and the rewritten code runs on the
installed torch (2.13.0) and binds the same objects the original meant."""

from __future__ import annotations

import textwrap
import warnings

import torch
from packaging.version import Version

from auditor.fix.apply import findings_in_source, rewrite_source
from auditor.fix.spec import FixMode
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange


def _rewrite(source: str, entry: SpecChange, mode: FixMode, versions: tuple[str, str] | None = None) -> tuple[str, list[str]]:
    source = textwrap.dedent(source)
    findings = findings_in_source(source, [entry])
    assert findings, "the scanner found nothing"
    done = rewrite_source(source, findings, [entry], mode, min_confidence="low",
                          versions={"torch": (Version(versions[0]), Version(versions[1]))} if versions else None)
    return done.new_source, [f"{x.kind}: {x.reason}" for x in done.left_alone]


def test_torch_func_imports_point_at_functorch_on_a_downgrade_to_1_13(kb: KnowledgeBase) -> None:
    new, left = _rewrite('''
        import torch
        from torch.func import vmap, jacrev as jr, functional_call
        batched = vmap(torch.sin)(torch.zeros(2))
        jac = jr(torch.sin)(torch.zeros(2))
        out = functional_call(torch.nn.Linear(1, 1), {}, (torch.zeros(1),))
    ''', kb.get("torch-func-added"), "keep-old", ("2.1.0", "1.13.1"))
    assert new.splitlines()[1:4] == ["import torch", "from torch.func import functional_call", "from functorch import vmap, jacrev as jr"]
    assert left == ["no-fix: no mechanical fix for a call of torch.func.functional_call of this change with --keep-old"]
    namespace: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # functorch's own deprecation notes on 2.x
        exec(new, namespace)
    assert torch.equal(namespace["batched"], torch.zeros(2))  # type: ignore[arg-type]
    assert torch.equal(namespace["jac"], torch.eye(2))  # type: ignore[arg-type]
    _, left = _rewrite("import torch.func\ntorch.func.vmap(f)\n", kb.get("torch-func-added"), "keep-old", ("2.1.0", "1.12.1"))
    assert left == ["requires: the rewrite needs torch>=1.13, which 1.12.1 is not"]  # no functorch in the 1.12 wheel


def test_torch_ao_nn_quantized_imports_point_at_torch_nn_quantized(kb: KnowledgeBase) -> None:
    new, left = _rewrite('''
        import torch.ao.nn.quantized as nnq
        from torch.ao.nn.quantized.dynamic import LSTM
        layer = nnq.Linear(2, 2)
        rnn = LSTM
    ''', kb.get("torch-ao-nn-quantized-added"), "keep-old", ("1.13.1", "1.12.1"))
    assert new.splitlines()[1:3] == ["import torch.nn.quantized as nnq", "from torch.nn.quantized.dynamic import LSTM"]
    assert not left
    namespace: dict[str, object] = {}
    exec(new.replace("layer = nnq.Linear(2, 2)", "layer = nnq.Linear"), namespace)  # not built: it warns once per process on 2.13
    assert namespace["layer"] is torch.ao.nn.quantized.Linear and namespace["rnn"] is torch.ao.nn.quantized.dynamic.LSTM


def test_dtensor_names_move_to_the_private_module_and_others_stay(kb: KnowledgeBase) -> None:
    new, left = _rewrite('''
        from torch.distributed.tensor import DTensor, Shard, Partial
        placements = [Shard(0)]
        kind = DTensor
    ''', kb.get("torch-distributed-tensor-public"), "keep-old", ("2.5.1", "2.4.1"))
    assert new.splitlines()[1:3] == ["from torch.distributed.tensor import Partial", "from torch.distributed._tensor import DTensor, Shard"]
    assert not left
    namespace: dict[str, object] = {}
    exec(new, namespace)
    assert namespace["kind"] is torch.distributed.tensor.DTensor


def test_torch_six_names_are_imported_from_what_they_stood_for(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-six-py2-helpers-removed")
    new, left = _rewrite('''
        from torch._six import container_abcs, int_classes, queue, string_classes
        import torch._six as six
        ok = isinstance({}, container_abcs.Mapping) and isinstance(3, int_classes) and queue.Queue
        buffer = six.StringIO()
    ''', entry, "keep-old", ("1.8.1", "1.9.0"))
    assert new == textwrap.dedent('''
        import io
        from torch._six import string_classes
        from collections import abc as container_abcs
        from builtins import int as int_classes
        import queue
        import torch._six as six
        ok = isinstance({}, container_abcs.Mapping) and isinstance(3, int_classes) and queue.Queue
        buffer = io.StringIO()
    ''')  # string_classes is torch-six-removed's (2.0); `six` is reached through for StringIO only, and still exists on 1.9
    assert not left
    namespace: dict[str, object] = {}
    exec(new.replace("from torch._six import string_classes\n", "").replace("import torch._six as six\n", ""), namespace)
    assert namespace["ok"] is __import__("queue").Queue  # on 2.13, where torch._six is gone
    assert isinstance(namespace["buffer"], __import__("io").StringIO)


def test_loss_legacy_flags_become_reduction_with_the_same_value(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-loss-size-average-reduce-deprecated")
    source = '''
        import torch
        import torch.nn.functional as F
        x, y = torch.tensor([[1.0, 2.0], [3.0, 5.0]]), torch.zeros(2, 2)
        a = F.mse_loss(x, y, size_average=False)
        b = torch.nn.L1Loss(reduce=False)(x, y)
        c = F.nll_loss(x.log_softmax(1), torch.tensor([0, 1]), None, size_average=False)
        d = F.smooth_l1_loss(x, y, reduce=flag)
    '''
    new, left = _rewrite(source, entry, "keep-old", ("0.4.1", "1.0.0"))
    assert "a = F.mse_loss(x, y, reduction='sum')" in new and "torch.nn.L1Loss(reduction='none')" in new
    assert "F.nll_loss(x.log_softmax(1), torch.tensor([0, 1]), None, reduction='sum')" in new  # weight stays positional
    assert left == ["unknown-value: reduce=flag is not a literal: which reduction= it means is not known here"]
    old_ns: dict[str, object] = {"flag": True}
    new_ns: dict[str, object] = {"flag": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(textwrap.dedent(source), old_ns)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rewrite does not warn
        exec(new.replace(", reduce=flag", ""), new_ns)
    for name in "abc":
        assert torch.equal(old_ns[name], new_ns[name]), name  # type: ignore[arg-type]


def test_sparse_legacy_constructors_become_sparse_coo_tensor_except_the_size_form(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-sparse-legacy-constructors-deprecated")
    source = '''
        import torch
        i, v = torch.tensor([[0, 2]]), torch.tensor([1.0, 2.0])
        a = torch.sparse.FloatTensor(i, v, torch.Size([3]))
        b = torch.sparse.DoubleTensor(i, v.double())
        c = torch.sparse.FloatTensor(2, 3)
    '''
    new, left = _rewrite(source, entry, "adopt-new")
    assert "a = torch.sparse_coo_tensor(i, v, torch.Size([3]))" in new and "b = torch.sparse_coo_tensor(i, v.double())" in new
    assert left == ["positional: positional argument 0 is the number 2: another form of the call"]
    old_ns: dict[str, object] = {}
    new_ns: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(textwrap.dedent(source), old_ns)
        exec(new, new_ns)
    for name in "ab":
        old, rewritten = old_ns[name], new_ns[name]
        assert isinstance(old, torch.Tensor) and isinstance(rewritten, torch.Tensor)
        assert old.dtype == rewritten.dtype and torch.equal(old.to_dense(), rewritten.to_dense())


def test_kl_div_mean_keeps_its_value_through_none_then_mean(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-kl-div-mean-reduction-warns")
    source = '''
        import torch
        import torch.nn.functional as F
        p, q = torch.tensor([[0.2, 0.8], [0.5, 0.5]]).log(), torch.tensor([[0.3, 0.7], [0.9, 0.1]])
        a = F.kl_div(p, q)
        b = F.kl_div(p, q, reduction='mean', log_target=False)
        c = F.kl_div(p, q, size_average=False)
    '''
    new, left = _rewrite(source, entry, "keep-old", ("0.4.1", "1.0.0"))
    assert "a = F.kl_div(p, q, reduction='none').mean()" in new
    assert "b = F.kl_div(p, q, log_target=False, reduction='none').mean()" in new
    assert left == ["keyword-given: the call gives size_average=, which this rewrite does not keep"]
    old_ns: dict[str, object] = {}
    new_ns: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(textwrap.dedent(source), old_ns)
        exec(new, new_ns)
    assert torch.equal(old_ns["a"], new_ns["a"]) and torch.equal(old_ns["b"], new_ns["b"])  # type: ignore[arg-type]


def test_sdp_kernel_flags_become_the_backend_list_it_passes_itself(kb: KnowledgeBase) -> None:
    entry = kb.get("torch-sdp-kernel-deprecated")
    calls = [
        "torch.backends.cuda.sdp_kernel()",
        "torch.backends.cuda.sdp_kernel(enable_flash=False)",
        "torch.backends.cuda.sdp_kernel(enable_math=False, enable_mem_efficient=True)",
        "torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False, enable_cudnn=False)",
        "torch.backends.cuda.sdp_kernel(enable_flash=False, enable_math=False, enable_mem_efficient=False, enable_cudnn=False)",
    ]
    probe = "import torch\nb = torch.backends.cuda\nwith {call}:\n    on = (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(), b.cudnn_sdp_enabled())\n"
    for call in calls:
        source = probe.format(call=call)
        new, left = _rewrite(source, entry, "adopt-new", ("2.2.2", "2.3.0"))
        assert not left and "sdp_kernel" not in new and "torch.nn.attention.sdpa_kernel(backends=[" in new, new
        old_ns: dict[str, object] = {}
        new_ns: dict[str, object] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(source, old_ns)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no FutureWarning from the rewrite
            exec(new, new_ns)
        assert old_ns["on"] == new_ns["on"], (call, new)
    _, left = _rewrite("import torch\ntorch.backends.cuda.sdp_kernel(flash)\nwith torch.backends.cuda.sdp_kernel(enable_math=on):\n    pass\n",
                       entry, "adopt-new", ("2.2.2", "2.3.0"))
    assert left == [
        "positional: 1 positional arguments given, at most 0 keep their place: positional arguments would move",
        "unknown-value: enable_math=on is not a literal: which backends= it means is not known here",
    ]
    _, left = _rewrite("import torch\ntorch.backends.cuda.sdp_kernel()\n", entry, "keep-old", ("2.2.2", "2.3.0"))
    assert left == ["requires: the rewrite needs torch>=2.3, which 2.2.2 is not"]  # keep-old must run on both ends
