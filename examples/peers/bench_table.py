#!/usr/bin/env python3
"""Turns `spark-attention bench` JSON lines (and numpy_peers.py lines) into the Markdown tables of
BENCHMARKS.md. Reads the files given (or stdin); prints one table of kernel and peer rows per
causal setting: GFLOP/s from the median wall time (min-time GFLOP/s in parentheses), the kernel's
ratio to ORT's mha.onnx measured in the same run, each contender's share of the FMA loop's rate
(`--peer fma`) in the same run, and the kernel's peak heap. `bench --backward` lines add the backward
kernel's rows and its GFLOP/s over the forward's in the same run (vs_forward). `bench --train` and
torch_train.py lines make one more table: tokens per second for each training shape, and their ratio.

    python3 examples/peers/bench_table.py results/*.jsonl
"""
import collections
import fileinput
import json


def label(j):
    if j["mode"] in ("kernel", "backward"):
        ops = j.get("tile_ops", "?").split("+")[0]
        name = j["mode"] + " " + ("vector (Java tiles)" if ops.startswith("vector") else ops)
        # A run without native BLAS in the JVM (-Dsparkattention.blas=java) is its own row: its
        # lines must not replace the same path's lines from the round-robin run, whose ratios to
        # ORT hold only within that run.
        return name if j.get("blas", "").startswith("JNI") else name + ", no native BLAS"
    return j["mode"] + (" " + j["model"] if "model" in j else "")


rows = collections.OrderedDict()
fma_runs = {}  # (file, n) -> the FMA loop's line: each contender is compared with its own run's
training = collections.OrderedDict()  # (E, H, L, B) -> {mode: line}
for raw in fileinput.input():
    raw = raw.strip()
    if not raw.startswith("{"):
        continue
    j = json.loads(raw)
    j["_file"] = fileinput.filename()
    if j["mode"] in ("train", "torch-train"):
        shape = (j["embed_dim"], j["num_heads"], j["seq_len"], j["rows_per_step"])
        training.setdefault(shape, {})[j["mode"]] = j
        continue
    if j["mode"] == "fma":
        fma_runs[(j["_file"], j["seq_len"])] = j
        continue
    rows[(j["causal"], label(j), j["seq_len"])] = j

for causal in (False, True):
    keys = [k for k in rows if k[0] == causal]
    if not keys:
        continue
    lengths = sorted({k[2] for k in keys})
    labels = list(dict.fromkeys(k[1] for k in keys))
    print(f"\n**{'causal' if causal else 'not causal'}** — GFLOP/s, median (best)\n")
    print("| path | " + " | ".join(f"n = {n}" for n in lengths) + " |")
    print("| --- |" + " --- |" * len(lengths))
    for lab in labels:
        cells = []
        for n in lengths:
            j = rows.get((causal, lab, n))
            cells.append("" if j is None else
                         f"{j['gflops']:.0f} ({j['gflops'] * j['median_ms'] / j['min_ms']:.0f})")
        print(f"| {lab} | " + " | ".join(cells) + " |")
    ort = {n: rows.get((causal, "ort mha_causal.onnx" if causal else "ort mha.onnx", n)) for n in lengths}
    for lab in labels:
        if not lab.startswith("kernel"):
            continue
        cells = []
        for n in lengths:
            j, o = rows.get((causal, lab, n)), ort[n]
            cells.append("" if j is None or o is None else f"{o['median_ms'] / j['median_ms']:.2f}×")
        if any(cells):
            print(f"| {lab} ÷ ORT (speed, median) | " + " | ".join(cells) + " |")
    # The FMA loop (bench --peer fma) ran round-robin with each contender: its ceiling in the same seconds.
    for lab in labels:
        cells = []
        for n in lengths:
            j = rows.get((causal, lab, n))
            f = None if j is None else fma_runs.get((j["_file"], n))
            cells.append("" if f is None else f"{j['gflops'] / f['gflops']:.2f}")
        if any(cells):
            print(f"| {lab} ÷ FMA loop (GFLOP/s, same run) | " + " | ".join(cells) + " |")
    for lab in labels:
        if not lab.startswith("backward"):
            continue
        cells = []
        for n in lengths:
            j = rows.get((causal, lab, n))
            cells.append("" if j is None or "vs_forward" not in j else f"{j['vs_forward']:.2f}×")
        print(f"| {lab} ÷ forward (GFLOP/s, same run) | " + " | ".join(cells) + " |")
    for lab in labels:
        if not lab.startswith(("kernel", "backward")):
            continue
        cells = []
        for n in lengths:
            j = rows.get((causal, lab, n))
            cells.append("" if j is None else f"{j['median_ms']:.0f} ms / {j.get('peak_heap_mb', '?')} MiB")
        print(f"| {lab}: median time / peak heap | " + " | ".join(cells) + " |")
    if causal:
        for lab in labels:
            cells = []
            for n in lengths:
                c, nc = rows.get((True, lab, n)), rows.get((False, lab, n))
                cells.append("" if c is None or nc is None else f"{c['median_ms'] / nc['median_ms']:.2f}")
            if any(cells):
                print(f"| {lab}: causal ÷ non-causal time | " + " | ".join(cells) + " |")

if training:
    print("\n**training** — tokens/s (rows_per_step·seq_len over the median step), median step time\n")
    print("| E, H, L, B | spark-attention | PyTorch | spark-attention ÷ PyTorch |")
    print("| --- | --- | --- | --- |")
    for (e, h, n, b), runs in training.items():
        ours, torch = runs.get("train"), runs.get("torch-train")
        cell = lambda j: "" if j is None else f"{j['tokens_per_s'] / 1000:.1f}k ({j['median_step_ms']:.0f} ms)"
        ratio = "" if ours is None or torch is None else f"{ours['tokens_per_s'] / torch['tokens_per_s']:.2f}×"
        print(f"| {e}, {h}, {n}, {b} | {cell(ours)} | {cell(torch)} | {ratio} |")
