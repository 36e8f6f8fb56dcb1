#!/usr/bin/python3
"""PyTorch's training throughput on the attention classifier, as a JSON line like
`spark-attention bench --train` prints: the peer for BENCHMARKS.md's training table.

The module is the reference AttentionClassifier of the training fixtures (nn.MultiheadAttention
self-attention with key padding, residual, mean pooling, nn.Linear head), trained with Adam on B
random full-length rows of L tokens of width E per step, float32, as `bench --train` does. A step
is zero_grad + forward + backward + Adam step; untimed steps first, then the median of the timed
ones. Debian's python3-torch (1.13); not run by CI.

    /usr/bin/python3 examples/peers/torch_train.py --embed-dim 64 --num-heads 4 --seq-len 100 \
        --rows-per-step 256 --threads 2
"""
import argparse
import json
import os
import statistics
import sys
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--embed-dim", type=int, default=64)
    p.add_argument("--num-heads", type=int, default=4)
    p.add_argument("--num-classes", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=100)
    p.add_argument("--rows-per-step", type=int, default=256)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def main():
    a = parse()
    os.environ.setdefault("OMP_NUM_THREADS", str(a.threads))
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)

    class AttentionClassifier(nn.Module):
        def __init__(self, E, H, K):
            super().__init__()
            self.attention = nn.MultiheadAttention(E, H, batch_first=True)
            self.classifier = nn.Linear(E, K)

        def forward(self, x, lengths):
            L = x.shape[1]
            pad = torch.arange(L)[None, :] >= lengths[:, None]
            h = x + self.attention(x, x, x, key_padding_mask=pad, need_weights=False)[0]
            m = (~pad).to(h.dtype).unsqueeze(-1)
            return self.classifier((h * m).sum(1) / m.sum(1))

    B, L, E = a.rows_per_step, a.seq_len, a.embed_dim
    model = AttentionClassifier(E, a.num_heads, a.num_classes)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(B, L, E)
    lengths = torch.full((B,), L, dtype=torch.long)
    y = torch.randint(0, a.num_classes, (B,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x, lengths), y)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(a.warmup):
        step()
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1000.0)
    med = statistics.median(times)
    print(json.dumps({"mode": "torch-train", "torch": torch.__version__, "threads": a.threads,
                      "embed_dim": E, "num_heads": a.num_heads, "seq_len": L, "rows_per_step": B,
                      "causal": False,
                      "median_step_ms": round(med, 3), "min_step_ms": round(min(times), 3),
                      "max_step_ms": round(max(times), 3),
                      "tokens_per_s": round(B * L / (med / 1000.0), 1),
                      "repeat": a.repeat, "times_ms": [round(t, 3) for t in times],
                      "warmup_steps": a.warmup, "num_classes": a.num_classes,
                      "parameters": sum(p.numel() for p in model.parameters())}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
