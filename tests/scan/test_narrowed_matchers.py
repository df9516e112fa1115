"""Matchers the code in view decides (issue 16): keywords through `**kwargs` built in view,
usage conditions (`zero_grad()` matters where `.grad` is read), and conditions on an argument's
dtype (`masked_fill`'s mask). Each line ending in `# expect[level]` must be reported with that
confidence, and no other line."""

import pytest

from auditor.knowledge.base import KnowledgeBase
from tests.scan.test_resolution import expected, found

PREFETCH = "torch-dataloader-prefetch-factor-requires-workers"
PIN = "torch-dataloader-pin-memory-without-accelerator-warns"
KL_DIV = "torch-kl-div-mean-reduction-warns"
ZERO_GRAD = "torch-zero-grad-set-to-none-default"
MASKED_FILL = "torch-masked-fill-uint8-mask-raises"
SCALER = "torch-cuda-amp-gradscaler-deprecated"
GATHER = "torch-cuda-comm-gather-destination-minus-one-deprecated"
REDUCE_RANGE = "torch-quantization-observer-reduce-range-deprecated"
LOAD = "torch-load-weights-only-default-true"

CASES = {
    "keys of dicts built in view decide keyword_present and keyword_absent": (PREFETCH, """
        from torch.utils.data import DataLoader

        def loaders(ds, args, use_accel, given):
            plain = {"batch_size": 8}
            a = DataLoader(ds, **plain)
            with_factor = {"batch_size": 8, "prefetch_factor": 2}
            b = DataLoader(ds, **with_factor)  # expect
            workers = dict(with_factor, num_workers=2)
            c = DataLoader(ds, **workers)
            maybe = {"batch_size": 8}
            if use_accel:
                maybe["prefetch_factor"] = 4
            d = DataLoader(ds, **maybe)  # expect[low]
            e = DataLoader(ds, **given)  # expect[low]
            f = DataLoader(ds, **{**plain, "num_workers": 0})
            return a, b, c, d, e, f
        """),
    "a dict that escapes or is built elsewhere stays unknown": (PREFETCH, """
        from torch.utils.data import DataLoader

        DEFAULTS = {"batch_size": 8}

        def configure(options):
            options["prefetch_factor"] = 2

        def loaders(ds, extra):
            passed = {"batch_size": 8}
            configure(passed)
            a = DataLoader(ds, **passed)  # expect[low]
            b = DataLoader(ds, **DEFAULTS)  # expect[low]
            merged = {"batch_size": 8}
            merged.update(extra)
            c = DataLoader(ds, **merged)  # expect[low]
            replaced = {"batch_size": 8}
            replaced |= extra
            d = DataLoader(ds, **replaced)  # expect[low]
            return a, b, c, d
        """),
    "keyword_values through a dict: certain, possible, ruled out": (KL_DIV, """
        import torch.nn.functional as F

        def losses(s, t, batch):
            mean = {"reduction": "mean", "log_target": False}
            a = F.kl_div(s, t, **mean)  # expect
            summed = {"reduction": "sum"}
            b = F.kl_div(s, t, **summed)
            maybe = {"log_target": False, "reduction": "mean"} if batch else {}
            c = F.kl_div(s, t, **maybe)  # expect[low]
            never = {"reduction": "sum"} if batch else {"reduction": "batchmean"}
            d = F.kl_div(s, t, **never)
            dropped = {"reduction": "sum"} if batch else {"reduction": "batchmean"}
            if batch:
                del dropped["reduction"]
            e = F.kl_div(s, t, **dropped)  # expect[low]
            return a, b, c, d, e
        """),
    "keyword_values: a negative number is a literal too": (GATHER, """
        import torch.cuda.comm as comm

        def collect(parts, here):
            a = comm.gather(parts, destination=-1)  # expect
            b = comm.gather(parts, destination="cpu")
            c = comm.gather(parts, destination=1)
            d = comm.gather(parts, destination=-(1))  # expect
            return a, b, c, d
        """),
    "keyword_values: a bool literal, not a name that may hold one": (REDUCE_RANGE, """
        from torch.ao.quantization import MinMaxObserver

        def observers(flag):
            a = MinMaxObserver(reduce_range=True)  # expect
            b = MinMaxObserver(reduce_range=False)
            c = MinMaxObserver(reduce_range=flag)
            return a, b, c
        """),
    "zero_grad matters only where .grad is read in the module": (ZERO_GRAD, """
        import torch

        def step(model, optimizer, scale):
            optimizer.zero_grad()  # expect[low]
            model.zero_grad(set_to_none=False)
            for p in model.parameters():
                if p.grad is None:
                    continue
                p.grad.mul_(scale)
        """),
    "zero_grad without any .grad read is not a finding": (ZERO_GRAD, """
        import torch

        def step(model, optimizer, loss):
            optimizer.zero_grad()
            loss.backward()
            grads = torch.autograd.grad(loss, list(model.parameters()))
            optimizer.step()
            return grads
        """),
    "masked_fill: integer masks in full, unknown low, bool and float never": (MASKED_FILL, """
        import torch

        def attend(scores: torch.Tensor, pad: torch.Tensor, lengths, other):
            a = scores.masked_fill(pad.long(), 0.0)  # expect
            b = scores.masked_fill(pad, 0.0)  # expect[low]
            c = scores.masked_fill(pad.bool(), 0.0)
            d = scores.masked_fill(scores > 0, 0.0)
            e = other.masked_fill(pad.byte(), 0.0)  # expect[medium]
            f = other.masked_fill(pad, 0.0)  # expect[low]
            g = scores.masked_fill(pad.float(), 0.0)
            return a, b, c, d, e, f, g
        """),
    "masks built by comparisons in view are bool (transformers' attention masks)": (MASKED_FILL, """
        import torch

        def collate(probability, labels, pad_id, attention):
            padding_mask = labels.eq(pad_id)
            probability.masked_fill_(padding_mask, value=0.0)
            keep = ~padding_mask & labels.ne(0)
            attention.masked_fill_(keep.unsqueeze(-1), value=1.0)
            maybe = labels.eq(pad_id) if pad_id else labels
            attention.masked_fill_(maybe, value=1.0)  # expect[low]

        def attend(scores: torch.Tensor, mask, shape):
            scores.masked_fill_(mask, 0.0)  # expect[low]
            mask = (mask == 0).view(shape).expand_as(scores)
            return scores.masked_fill(mask, torch.finfo(scores.dtype).min)
        """),
    "a load whose result is declared to hold only tensors is not affected by weights_only=True": (LOAD, """
        import collections
        from typing import Any, Dict, List, Optional, OrderedDict, Tuple
        import torch
        from torch import Tensor

        class Config: ...

        def cached(path) -> Tuple[Tensor, Tensor]:  # Lightning's MNIST cache
            res, exception = None, None
            for _ in range(3):
                try:
                    res = torch.load(path)
                except Exception as ex:
                    exception = ex
            if res is None:
                raise exception
            return res

        def state(path) -> "OrderedDict[str, Tensor]":
            return torch.load(path)

        def mixed(path) -> Dict[str, Optional[List[torch.Tensor]]]:
            return torch.load(path)

        weights: Dict[str, torch.nn.Parameter] = torch.load("w.pt")
        number: int | None = torch.load("n.pt")

        def anything(path) -> Dict[str, Any]:
            return torch.load(path)  # expect[medium]

        def plain_dict(path) -> dict:
            return torch.load(path)  # expect[medium]

        def config(path) -> Config:
            return torch.load(path)  # expect[medium]

        def unpacked(path) -> Tensor:
            checkpoint = torch.load(path)  # expect[medium]
            checkpoint = checkpoint["model"]  # bound again: the annotation is of a part
            return checkpoint

        def undeclared(path):
            return torch.load(path)  # expect[medium]

        model = torch.load("model.pt")  # expect[medium]
        lazy: List[Tensor] = list(map(torch.load, ["a.pt"]))  # expect[low]
        """),
}

SUBCLASSES = """
    import torch
    from torch.utils.data import DataLoader

    class MultiEpochsDataLoader(DataLoader):  # timm: a condition on call arguments says nothing here
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)

    class Scaler(torch.cuda.amp.GradScaler):  # expect[medium]
        pass
    """


@pytest.mark.parametrize("name", list(CASES))
def test_narrowed(kb: KnowledgeBase, name: str) -> None:
    entry, source = CASES[name]
    assert found(kb, source, entry) == expected(source)


def test_subclass_is_reported_only_for_unconditional_matchers(kb: KnowledgeBase) -> None:
    assert found(kb, SUBCLASSES, PREFETCH, PIN, SCALER) == expected(SUBCLASSES)


def test_a_declared_load_still_warns_on_the_way_through_2_4(kb: KnowledgeBase) -> None:
    """The 2.4 stage warns wherever `weights_only` is not passed, whatever the file holds: the
    declaration narrows the 2.6 default flip only."""
    source = """
        import torch
        from torch import Tensor
        from typing import Tuple

        def cached(path) -> Tuple[Tensor, Tensor]:
            return torch.load(path)
        """
    assert found(kb, source, LOAD) == {}
    assert found(kb, source, "torch-load-weights-only-default-warns") == {7: "medium"}
