#!/usr/bin/python3
"""PyTorch's whole self-attention layer forward, as JSON lines like `spark-attention bench --layer` prints:
the PyTorch peer of BENCHMARKS.md's whole-layer table.

nn.MultiheadAttention(E, H, batch_first=True) in eval mode under no_grad, self-attention (query = key =
value, need_weights=False: PyTorch 1.13's fused fast path), float32, on R random rows of L×E. The weights
and biases are uniform in ±1/√E and the inputs uniform in [-1, 1), as the bench draws them (the same
distributions, not the same numbers: the generators differ). The rows go to the module in calls of
--rows-per-call rows (default: 8192 tokens per call, as the bench feeds ONNX Runtime). A repetition is one
pass over all rows; untimed passes first, then the median of the timed ones. gflops counts the four
projections (2·L·E·E each) and the attention (4·L·L·E) per row over the median; tokens_per_s is R·L over
it. Debian's python3-torch (1.13); not run by CI.

    /usr/bin/python3 examples/peers/torch_layer.py --embed-dim 768 --num-heads 12 --seq-len 128 --rows 512
    /usr/bin/python3 examples/peers/torch_layer.py --embed-dim 64 --num-heads 4 --seq-len 100 --rows 8192
"""
import argparse
import json
import os
import statistics
import sys
import time

TOKENS_PER_CALL = 8192


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--embed-dim", type=int, required=True)
    p.add_argument("--num-heads", type=int, required=True)
    p.add_argument("--seq-len", type=lambda s: [int(x) for x in s.split(",")], required=True,
                   help="sequence lengths, comma-separated")
    p.add_argument("--rows", type=int, default=512)
    p.add_argument("--rows-per-call", type=int, default=None,
                   help="rows per forward call (default: %d tokens' worth)" % TOKENS_PER_CALL)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    for name in ("embed_dim", "num_heads", "rows", "threads", "repeat"):
        if getattr(a, name) < 1:
            p.error("--%s must be >= 1, got %d" % (name.replace("_", "-"), getattr(a, name)))
    if a.embed_dim % a.num_heads != 0:
        p.error("--num-heads (%d) must divide --embed-dim (%d)" % (a.num_heads, a.embed_dim))
    if any(n < 1 for n in a.seq_len):
        p.error("--seq-len must be >= 1")
    return a


def flops(seq_len, embed_dim, rows):
    """Work of one pass, as `bench --layer` counts it."""
    return rows * (4 * 2.0 * seq_len * embed_dim * embed_dim + 4.0 * seq_len * seq_len * embed_dim)


def main():
    a = parse()
    os.environ.setdefault("OMP_NUM_THREADS", str(a.threads))
    import torch
    import torch.nn as nn

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    E, H, R = a.embed_dim, a.num_heads, a.rows
    layer = nn.MultiheadAttention(E, H, batch_first=True).eval()
    bound = 1.0 / E ** 0.5
    with torch.no_grad():
        for p in layer.parameters():
            p.uniform_(-bound, bound)

    for L in a.seq_len:
        per_call = a.rows_per_call or max(1, min(R, TOKENS_PER_CALL // L))
        x = torch.rand(R, L, E) * 2 - 1
        calls = [x[i:i + per_call] for i in range(0, R, per_call)]

        def one_pass():
            total = 0.0
            with torch.no_grad():
                for c in calls:
                    y = layer(c, c, c, need_weights=False)[0]
                    total += float(y.sum(dtype=torch.float64))
            return total

        checksum = 0.0
        for _ in range(a.warmup):
            checksum = one_pass()
        times = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            one_pass()
            times.append((time.perf_counter() - t0) * 1000.0)
        med = statistics.median(times)
        print(json.dumps({"mode": "torch_layer", "torch": torch.__version__, "threads": a.threads,
                          "seq_len": L, "embed_dim": E, "num_heads": H, "head_dim": E // H, "rows": R,
                          "causal": False, "rows_per_call": per_call,
                          "median_ms": round(med, 3), "min_ms": round(min(times), 3),
                          "max_ms": round(max(times), 3),
                          "gflops": round(flops(L, E, R) / (med * 1e6), 3),
                          "tokens_per_s": round(R * L / (med / 1000.0), 1),
                          "repeat": a.repeat, "times_ms": [round(t, 3) for t in times],
                          "warmup": a.warmup, "checksum": checksum}))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
