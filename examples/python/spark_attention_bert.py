"""PyTorch's module of spark-attention's fine-tuned BertClassifier, and a loader for its export.

    from spark_attention_bert import load_bert_classifier
    model = load_bert_classifier("fine-tuned.safetensors")  # BertClassificationModel.exportPyTorch,
                                                          # fine-tune --export-pytorch, or a saved
                                                          # model's data/model.safetensors
    logits = model([[101, 7592, 2088, 102], [101, 2204, 102]])   # one list of token ids per row

The module is the model of the library's fine-tuning fixtures
(spark-attention/src/test/resources/fixtures/finetune, make_finetune_fixtures.py), Hugging Face's
BertModel with a linear head on its pooled output, so its logits are the Java model's
rawPrediction. Each row is one unpadded sequence (token type 0, positions 0 .. L-1):

    x      = LayerNorm(word[ids] + position[0:L] + token_type[0])
    x      = layer(x) for each post-LayerNorm transformer layer (exact-erf GELU)
    pooled = mean of x over the L tokens ("mean") or x[0] ("cls")
    logits = pooled W^T + b

Parameter names are Hugging Face BertModel's (embeddings.word_embeddings.weight,
encoder.layer.N.attention.self.query.weight, ...) plus classifier.weight and classifier.bias, so
load_state_dict takes the export as it is. The export's __metadata__ records the heads
(num_attention_heads), the LayerNorm epsilon (layer_norm_eps) and the pooling. In training mode
the module applies dropout at Hugging Face's sites with its own generator; the library's masks
come from a counter-based generator and are not reproduced here. Needs only torch.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from spark_attention_reference import read_safetensors

__all__ = ["BertClassifier", "load_bert_classifier"]


class _Embeddings(nn.Module):
    def __init__(self, vocab, positions, types, hidden, eps, dropout):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(positions, hidden)
        self.token_type_embeddings = nn.Embedding(types, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=eps)
        self.dropout = nn.Dropout(dropout)

    def forward(self, ids):
        positions = torch.arange(ids.shape[0])
        x = self.word_embeddings(ids) + self.position_embeddings(positions) + self.token_type_embeddings.weight[0]
        return self.dropout(self.LayerNorm(x))


class _SelfAttention(nn.Module):
    def __init__(self, hidden, heads, dropout):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        length, hidden = x.shape
        d = hidden // self.heads
        q, k, v = (t(x).reshape(length, self.heads, d).transpose(0, 1) for t in (self.query, self.key, self.value))
        p = self.dropout(torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d), -1))
        return (p @ v).transpose(0, 1).reshape(length, hidden)


class _Residual(nn.Module):
    """dense, dropout, then LayerNorm(residual + it): BertSelfOutput and BertOutput."""

    def __init__(self, inner, hidden, eps, dropout):
        super().__init__()
        self.dense = nn.Linear(inner, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=eps)
        self.dropout = nn.Dropout(dropout)

    def forward(self, h, residual):
        return self.LayerNorm(residual + self.dropout(self.dense(h)))


class _Attention(nn.Module):
    def __init__(self, hidden, heads, eps, dropout):
        super().__init__()
        setattr(self, "self", _SelfAttention(hidden, heads, dropout))
        self.output = _Residual(hidden, hidden, eps, dropout)

    def forward(self, x):
        return self.output(getattr(self, "self")(x), x)


class _Intermediate(nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.dense = nn.Linear(hidden, intermediate)

    def forward(self, x):
        return F.gelu(self.dense(x))


class _Layer(nn.Module):
    def __init__(self, hidden, heads, intermediate, eps, dropout):
        super().__init__()
        self.attention = _Attention(hidden, heads, eps, dropout)
        self.intermediate = _Intermediate(hidden, intermediate)
        self.output = _Residual(intermediate, hidden, eps, dropout)

    def forward(self, x):
        x = self.attention(x)
        return self.output(self.intermediate(x), x)


class _Encoder(nn.Module):
    def __init__(self, layers, hidden, heads, intermediate, eps, dropout):
        super().__init__()
        self.layer = nn.ModuleList([_Layer(hidden, heads, intermediate, eps, dropout) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layer:
            x = layer(x)
        return x


class BertClassifier(nn.Module):
    """A BertModel (no pooler) with a linear head on the mean or [CLS] state of each unpadded row."""

    def __init__(self, layers, hidden, heads, intermediate, vocab, positions, types, num_classes,
                 pooling="mean", eps=1e-12, dropout=0.1):
        super().__init__()
        if pooling not in ("mean", "cls"):
            raise ValueError("pooling must be mean or cls, got %r" % pooling)
        self.pooling = pooling
        self.embeddings = _Embeddings(vocab, positions, types, hidden, eps, dropout)
        self.encoder = _Encoder(layers, hidden, heads, intermediate, eps, dropout)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, num_classes)

    def forward(self, rows):
        """Logits, B x K, of B rows of token ids (lists or 1-D tensors, each its own length)."""
        out = []
        for ids in rows:
            x = self.encoder(self.embeddings(torch.as_tensor(ids, dtype=torch.long)))
            pooled = x.mean(0) if self.pooling == "mean" else x[0]
            out.append(self.classifier(self.dropout(pooled)))
        return torch.stack(out)


def load_bert_classifier(path, dropout=0.1):
    """The BertClassifier of an export with its weights, in eval mode."""
    state, meta = read_safetensors(path)
    for key in ("num_attention_heads", "pooling"):
        if key not in meta:
            raise ValueError("%s: no %s in the file's metadata; is it a BertClassifier export?" % (path, key))
    layers = 0
    while ("encoder.layer.%d.attention.self.query.weight" % layers) in state:
        layers += 1
    vocab, hidden = state["embeddings.word_embeddings.weight"].shape
    model = BertClassifier(layers, hidden, int(meta["num_attention_heads"]),
                           state["encoder.layer.0.intermediate.dense.weight"].shape[0], vocab,
                           state["embeddings.position_embeddings.weight"].shape[0],
                           state["embeddings.token_type_embeddings.weight"].shape[0],
                           state["classifier.weight"].shape[0], meta["pooling"],
                           float(meta.get("layer_norm_eps", 1e-12)), dropout)
    model.load_state_dict(state)
    return model.eval()
