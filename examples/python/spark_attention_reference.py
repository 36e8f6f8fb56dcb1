"""PyTorch's reference module of spark-attention's AttentionClassifier, and a loader for its export.

    from spark_attention_reference import load_classifier
    model = load_classifier("cls.safetensors")     # what exportPyTorch / train --export-pytorch wrote
    logits = model(x, lengths)                     # x: B x L x E float32, lengths: valid tokens per row

The module is the one the library's training fixtures are computed with
(spark-attention/src/test/resources/fixtures/training/make_training_fixtures.py), so its logits
are the Java model's rawPrediction:

    a      = MultiheadAttention(E, num_heads)(x, x, x)   self-attention over each row's valid tokens
    h      = x + a  (residual)   or   a
    pooled = mean over valid tokens | first token | last valid token   (pooling)
    logits = Linear(E, K)(pooled)

An export is a safetensors file of the module's state_dict (PyTorch's names, F32) whose
__metadata__ records what PyTorch does not store: num_heads, causal, residual and pooling.
load_classifier reads it with the safetensors package when it is installed, else with the small
reader below. Needs only torch (Debian: apt-get install python3-torch).
"""
import json
import struct

import torch
import torch.nn as nn

__all__ = ["AttentionClassifier", "load_classifier", "read_safetensors"]


class AttentionClassifier(nn.Module):
    """Self-attention over each row's tokens, x + attention (or attention alone), pooling, a linear head."""

    POOLINGS = ("mean", "first", "last")

    def __init__(self, embed_dim, num_heads, num_classes, causal=False, residual=True, pooling="mean"):
        super().__init__()
        if pooling not in self.POOLINGS:
            raise ValueError("pooling must be one of %s, got %r" % (", ".join(self.POOLINGS), pooling))
        self.attention = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
        self.classifier = nn.Linear(embed_dim, num_classes)
        self.embed_dim, self.num_heads, self.num_classes = embed_dim, num_heads, num_classes
        self.causal, self.residual, self.pooling = causal, residual, pooling

    def forward(self, x, lengths=None):
        """Logits, B x K, of x: B x L x E (or one L x E sequence: K logits).

        lengths: valid tokens per row (B integers in [1, L]); tokens at positions >= a row's length
        are padding and never read. Default: every token is valid.
        """
        single = x.dim() == 2
        if single:
            x = x.unsqueeze(0)
        B, L, _ = x.shape
        if lengths is None:
            lengths = torch.full((B,), L, dtype=torch.long)
        lengths = torch.as_tensor(lengths, dtype=torch.long)
        pad = torch.arange(L)[None, :] >= lengths[:, None]            # True = padding
        mask = torch.triu(torch.ones(L, L, dtype=torch.bool), 1) if self.causal else None
        a, _ = self.attention(x, x, x, key_padding_mask=pad, attn_mask=mask, need_weights=False)
        h = x + a if self.residual else a
        if self.pooling == "mean":
            m = (~pad).to(h.dtype).unsqueeze(-1)
            pooled = (h * m).sum(1) / m.sum(1)
        elif self.pooling == "first":
            pooled = h[:, 0]
        else:  # last valid token
            pooled = h[torch.arange(B), lengths - 1]
        logits = self.classifier(pooled)
        return logits[0] if single else logits


_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
           "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
           "BOOL": torch.bool}


def read_safetensors(path):
    """(tensors by name, metadata) of a safetensors file: the safetensors package's reader when
    installed, else this one (an 8-byte little-endian header length, the JSON header, the data)."""
    try:
        from safetensors import safe_open
    except ImportError:
        safe_open = None
    if safe_open is not None:
        with safe_open(path, framework="pt") as f:
            return {name: f.get_tensor(name) for name in f.keys()}, dict(f.metadata() or {})
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError("%s: not a safetensors file (%d bytes)" % (path, len(data)))
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ValueError("%s: header length %d exceeds the file" % (path, n))
    header = json.loads(data[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", None) or {}
    body = memoryview(data)[8 + n:]
    tensors = {}
    for name, entry in header.items():
        if entry["dtype"] not in _DTYPES:
            raise ValueError("%s: tensor %r has dtype %s, which this reader does not know"
                             % (path, name, entry["dtype"]))
        begin, end = entry["data_offsets"]
        flat = torch.frombuffer(bytearray(body[begin:end]), dtype=_DTYPES[entry["dtype"]])
        tensors[name] = flat.reshape(entry["shape"])
    return tensors, metadata


def load_classifier(path):
    """The AttentionClassifier of an export (exportPyTorch, train --export-pytorch, or a saved
    model's data/classifier.safetensors) with its weights, in eval mode."""
    state, meta = read_safetensors(path)
    for key in ("num_heads", "causal", "residual", "pooling"):
        if key not in meta:
            raise ValueError("%s: no %s in the file's metadata; is it an AttentionClassifier export?" % (path, key))
    num_classes, embed_dim = state["classifier.weight"].shape
    model = AttentionClassifier(embed_dim, int(meta["num_heads"]), num_classes, meta["causal"] == "true",
                                meta["residual"] == "true", meta["pooling"])
    model.load_state_dict(state)
    return model.eval()
