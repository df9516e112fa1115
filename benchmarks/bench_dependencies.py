"""How much the dependency audit adds to `auditor compare`: a lock of 300 packages of which 30
depend on torch, bumped from torch 2.5.1 to 2.6.0.

    python benchmarks/bench_dependencies.py [--repeat N] [--work DIR]

The 30 dependents are real releases of the torch 2.5 era (DEPENDENTS below); the other 270 pins
are the registry pins of anomalib's uv.lock from the real-bump benchmark's snapshot (any lock of
plain packages would do), written as a requirements file. The project is a few lines that call
two of the dependents. Each run is one `python -m auditor compare` process:

- cold: an empty cache directory (index listings, metadata and wheels downloaded, sources scanned);
- warm: the same cache again, N times;
- project only: `--no-dependencies`, N times, with a warm cache.

Prints the medians and the ratio warm / project only. Needs the network for the cold run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEPENDENTS = {
    "accelerate": "1.1.1", "bitsandbytes": "0.44.1", "botorch": "0.12.0", "diffusers": "0.31.0",
    "facenet-pytorch": "2.6.0", "fairseq": "0.12.2", "gpytorch": "1.13", "kornia": "0.7.3",
    "lightning": "2.4.0", "lpips": "0.1.4", "monai": "1.4.0", "open-clip-torch": "2.29.0", "peft": "0.13.2",
    "pyannote-audio": "3.3.2", "pyro-ppl": "1.9.1", "pytorch-lightning": "2.4.0",
    "pytorch-metric-learning": "2.7.0", "rotary-embedding-torch": "0.8.5", "segmentation-models-pytorch": "0.3.4",
    "sentence-transformers": "3.3.1", "speechbrain": "1.0.2", "timm": "1.0.11", "torch-audiomentations": "0.11.1",
    "torchdiffeq": "0.2.4", "torchio": "0.20.1", "torchmetrics": "1.5.2", "torchsde": "0.2.6",
    "transformers": "4.46.3", "ultralytics": "8.3.40", "xformers": "0.0.28.post3",
}
OTHERS = Path("/work/harness/bumps/anomalib-renovate-uv-extras/uv.lock")
PROJECT = """from fairseq import checkpoint_utils
from transformers import Trainer

models, cfg, task = checkpoint_utils.load_model_ensemble_and_task(["hubert_base.pt"])
trainer = Trainer(model=models[0])
trainer.train(resume_from_checkpoint=True)
"""


def locks(work: Path) -> None:
    sys.path.insert(0, str(HERE.parent))
    from auditor.lockfiles import read_lock
    from auditor.lockfiles.interface import TORCH_FAMILY

    others = sorted({(p.name, str(p.version)) for p in read_lock(OTHERS).pins
                     if p.version is not None and not p.local and p.name not in TORCH_FAMILY
                     and p.name not in DEPENDENTS and p.name not in ("nvidia-nccl-cu12",) and "+" not in str(p.version)})
    chosen = [f"{name}=={version}" for name, version in others[:270]]
    chosen += [f"{name}=={version}" for name, version in sorted(DEPENDENTS.items())]
    for side, torch in (("old", "2.5.1"), ("new", "2.6.0")):
        (work / f"{side}.txt").write_text("\n".join([f"torch=={torch}", *chosen]) + "\n", "utf-8")
    (work / "project").mkdir(exist_ok=True)
    (work / "project" / "train.py").write_text(PROJECT, "utf-8")


def run(work: Path, cache: Path, *more: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "auditor", "compare", str(work / "old.txt"), str(work / "new.txt"),
                    "--project", str(work / "project"), "-f", "json", "--cache-dir", str(cache), *more],
                   capture_output=True, check=False, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-dependencies-"))
    work.mkdir(parents=True, exist_ok=True)
    locks(work)
    cache = work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    cold = run(work, cache)
    warm, alone = [], []
    for _ in range(args.repeat):  # alternated, so a drift of the machine's speed hits both alike
        warm.append(run(work, cache))
        alone.append(run(work, cache, "--no-dependencies"))
    print(f"packages: {len((work / 'new.txt').read_text().splitlines())}, torch dependents: {len(DEPENDENTS)}")
    print(f"cold (downloads included): {cold:.1f} s")
    print(f"warm: median {statistics.median(warm):.2f} s (min {min(warm):.2f}, max {max(warm):.2f})")
    print(f"project only: median {statistics.median(alone):.2f} s (min {min(alone):.2f}, max {max(alone):.2f})")
    print(f"warm / project only: {statistics.median(warm) / statistics.median(alone):.2f}x")


if __name__ == "__main__":
    main()
