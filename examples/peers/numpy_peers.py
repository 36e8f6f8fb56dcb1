#!/usr/bin/env python3
"""The numpy figures of BENCHMARKS.md, as JSON lines like `spark-attention bench` prints.

mode "numpy-seed":     the seed notebook's scaled_dot_product_attention (float64, as written there)
mode "numpy-seed-f32": the same code on float32 arrays
mode "numpy-sgemm":    float32 matmul of n x n by n x n (the machine's sgemm rate through numpy)

BH (row, head) problems of n x 64, as the kernel's bench. Threads: numpy's BLAS threads
(OPENBLAS_NUM_THREADS / OMP_NUM_THREADS, set before numpy loads).

    python3 examples/peers/numpy_peers.py --seq-len 256,1024,2048 --batch-heads 16 --threads 2
"""
import argparse
import json
import os
import sys
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seq-len", default="256,512,1024,2048")
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--batch-heads", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--sgemm", default="1024,2048,4096", help="sizes n of the n x n x n sgemm figures")
    return p.parse_args()


args = parse()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(args.threads)
import numpy as np  # noqa: E402  (after the thread settings)


def seed_softmax(x, axis=-1):
    e_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e_x / np.sum(e_x, axis=axis, keepdims=True)


def seed_sdpa(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    w = seed_softmax(scores, axis=-1)
    return np.matmul(w, V), w


def timed(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)


def line(mode, n, flops, times, **extra):
    med = times[len(times) // 2]
    out = dict(seq_len=n, head_dim=args.head_dim, batch_heads=args.batch_heads, causal=False,
               threads=args.threads, median_ms=round(med, 3), min_ms=round(times[0], 3),
               max_ms=round(times[-1], 3), gflops=round(flops / (med * 1e6), 3),
               blas="numpy " + np.__version__, mode=mode, repeat=len(times))
    out.update(extra)
    print(json.dumps(out), flush=True)


rng = np.random.default_rng(0)
bh, d = args.batch_heads, args.head_dim
for n in (int(x) for x in args.seq_len.split(",")):
    flops = 4.0 * n * n * d * bh
    for mode, dtype in (("numpy-seed", np.float64), ("numpy-seed-f32", np.float32)):
        Q, K, V = (rng.standard_normal((bh, n, d)).astype(dtype) for _ in range(3))
        line(mode, n, flops, timed(lambda: seed_sdpa(Q, K, V), args.repeat))
for n in (int(x) for x in args.sgemm.split(",")):
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    line("numpy-sgemm", n, 2.0 * n ** 3, timed(lambda: A @ B, args.repeat), note="n x n x n float32 matmul")
