"""Oracle speed against torch CPU on the large inputs of issue 2 (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_oracle.py [--repeat N]

Both sides are out of place (torch clones where its op is in place), best of N
runs, wall clock.  A ratio above 1 means the oracle is slower than torch.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import oracle  # noqa: E402


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def workloads(rng):
    import torch
    x = rng.standard_normal(10_000_000).astype(np.float32)
    tx = torch.from_numpy(x)
    yield ("clip 1e7 float32", lambda: oracle.clip(x, -0.5, 0.5), lambda: torch.clamp(tx, -0.5, 0.5))

    self_ = rng.standard_normal((1000, 10000)).astype(np.float32)
    index = np.argsort(rng.random((1000, 10000)), axis=1)          # a permutation per row: no repeats
    src = rng.standard_normal((1000, 10000)).astype(np.float32)
    ts, ti, tsrc = map(torch.from_numpy, (self_, index, src))
    yield ("scatter 1000x10000 float32 dim 1", lambda: oracle.scatter(self_, 1, index, src),
           lambda: ts.scatter(1, ti, tsrc))

    base = rng.standard_normal(100_000).astype(np.float32)
    idx = rng.integers(0, 100_000, size=(1_000_000, 1))             # ~10 updates per element
    upd = rng.standard_normal(1_000_000).astype(np.float32)
    tb, tidx, tupd = torch.from_numpy(base), torch.from_numpy(idx[:, 0]), torch.from_numpy(upd)
    yield ("scatter_nd_add 1e6 updates, duplicates", lambda: oracle.scatter_nd_add(base, idx, upd),
           lambda: tb.clone().index_put_((tidx,), tupd, accumulate=True))

    big = rng.standard_normal((4096, 4096)).astype(np.float32)
    block = rng.standard_normal((2048, 2048)).astype(np.float32)
    tbig, tblock = torch.from_numpy(big), torch.from_numpy(block)

    def torch_setitem():
        out = tbig.clone()
        out[1024:3072, 1024:3072] = tblock
        return out
    yield ("setitem 2048x2048 into 4096x4096", lambda: oracle.setitem(big, (slice(1024, None), slice(1024, None)),
                                                                      block), torch_setitem)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch is not installed: nothing to compare against", file=sys.stderr)
        return 2
    print(f"numpy {np.__version__}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
          f"best of {args.repeat}")
    print(f"{'workload':42} {'oracle ms':>10} {'torch ms':>10} {'ratio':>7}")
    for name, ours, theirs in workloads(np.random.default_rng(0)):
        ours(), theirs()            # warm up
        a, b = best(ours, args.repeat), best(theirs, args.repeat)
        print(f"{name:42} {a * 1e3:10.1f} {b * 1e3:10.1f} {a / b:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
