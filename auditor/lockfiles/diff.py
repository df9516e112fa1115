"""What changed between two locks: one transition per package (and per environment)."""

from __future__ import annotations

from dataclasses import dataclass

from auditor.models import EnvironmentFinding, Lock, Pin, Transition

TORCH_FAMILY = ("torch", "torchvision", "torchaudio", "torchtext", "torchdata", "triton")


def family_order(name: str) -> tuple[int, str]:
    return (TORCH_FAMILY.index(name) if name in TORCH_FAMILY else len(TORCH_FAMILY), name)


@dataclass(frozen=True, slots=True)
class LockDiff:
    packages: tuple[Transition, ...]  # every package that changed, torch family first
    environment: tuple[EnvironmentFinding, ...] = ()

    def transition(self, package: str) -> tuple[Transition, ...]:
        return tuple(t for t in self.packages if t.package == package)


def _pinned(lock: Lock) -> dict[tuple[str, str | None], Pin]:
    return {(pin.name, pin.marker): pin for pin in lock.pins if pin.version is not None}


def diff_locks(old: Lock, new: Lock) -> LockDiff:
    before, after = _pinned(old), _pinned(new)
    changed: list[Transition] = []
    for key in sorted(before.keys() | after.keys(), key=lambda k: (family_order(k[0]), k[1] or "")):
        old_pin, new_pin = before.get(key), after.get(key)
        old_v = old_pin.version if old_pin else None
        new_v = new_pin.version if new_pin else None
        if old_v != new_v:
            changed.append(Transition(key[0], old_v, new_v, key[1]))
    return LockDiff(packages=tuple(changed))
