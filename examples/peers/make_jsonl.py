#!/usr/bin/env python3
"""Writes a JSON-lines input for `spark-attention apply` of about --size-mb megabytes.

Each line is one sequence: {"id": i, "text": "...", "query": L x E floats}, L drawn from
[--min-len, --max-len] and values from a seeded generator, so the same arguments give the same
bytes. Pair it with any state_dict of embed_dim E, e.g. the fixture mha_self_basic (E = 16):

    python3 examples/peers/make_jsonl.py --out /tmp/apply-1g.jsonl --size-mb 1024 --embed-dim 16
    examples/bin/spark-attention apply --weights spark-attention/src/test/resources/fixtures/pytorch/mha_self_basic.safetensors \\
        --prefix state_dict. --num-heads 4 --input /tmp/apply-1g.jsonl --output /tmp/apply-1g-out --output-format parquet
"""
import argparse
import os
import random
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="the .jsonl file to write (refused if it exists)")
    p.add_argument("--size-mb", type=float, default=1024, help="approximate size in MiB (default 1024)")
    p.add_argument("--embed-dim", type=int, default=16, help="E, the width of every query row (default 16)")
    p.add_argument("--min-len", type=int, default=16, help="shortest sequence L (default 16)")
    p.add_argument("--max-len", type=int, default=256, help="longest sequence L (default 256)")
    p.add_argument("--empty-every", type=int, default=0,
                   help="every N-th line has an empty query [] (default 0: none)")
    p.add_argument("--seed", type=int, default=23)
    a = p.parse_args()
    if a.embed_dim < 1 or a.min_len < 0 or a.max_len < a.min_len or a.size_mb <= 0:
        sys.exit("make_jsonl.py: need --embed-dim >= 1, 0 <= --min-len <= --max-len and --size-mb > 0")
    if os.path.exists(a.out):
        sys.exit("make_jsonl.py: %s exists; give a new name" % a.out)
    rng = random.Random(a.seed)
    limit = int(a.size_mb * 1024 * 1024)
    written = 0
    rows = 0
    tmp = a.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        while written < limit:
            empty = a.empty_every > 0 and rows % a.empty_every == a.empty_every - 1
            length = 0 if empty else rng.randint(a.min_len, a.max_len)
            query = ",".join("[" + ",".join("%.5f" % rng.uniform(-1, 1) for _ in range(a.embed_dim)) + "]"
                             for _ in range(length))
            line = '{"id":%d,"text":"sequence %d of length %d","query":[%s]}\n' % (rows, rows, length, query)
            f.write(line)
            written += len(line)
            rows += 1
    os.replace(tmp, a.out)
    print("wrote %s: %d rows, %d bytes" % (a.out, rows, written))


if __name__ == "__main__":
    main()
