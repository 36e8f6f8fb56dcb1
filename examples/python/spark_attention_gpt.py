"""PyTorch's module of spark-attention's GPT-2 decoder, and a loader for its model directories.

    from spark_attention_gpt import load_gpt2
    model = load_gpt2("model-dir")      # config.json + model.safetensors: GptModelFiles.write,
                                        # --export-pytorch, or Hugging Face's save_pretrained
    log_probs = model.token_log_probs([[464, 3290, 318], [40, 716]])   # per row, L-1 natural logs
    new_ids = model.generate_greedy([[464, 3290]], max_new_tokens=8)    # per prompt, the new ids only

The module is GPT-2 as the library's fixtures specify it (make_gpt_fixtures.py beside the library's
test fixtures; Hugging Face's GPT2LMHeadModel without dropout), one unpadded row at a time:

    x      = wte[ids] + wpe[0:L]
    per layer:  a = LayerNorm(x; ln_1);  q | k | v = a W_attn + b_attn   (Conv1D: W stored [in, out])
                x = x + softmax(q k^T / sqrt(D), keys after the query masked) v, heads joined, W_proj + b_proj
                m = LayerNorm(x; ln_2);  x = x + act(m W_fc + b_fc) W_mproj + b_mproj
    logits = LayerNorm(x; ln_f) wte^T            (the tied head, or lm_head.weight when the file has one)

act is gelu_new (tanh form) or gelu (exact erf), as config.json's activation_function says.
Parameter names are Hugging Face's without the "transformer." prefix (wte.weight, h.0.attn.c_attn.weight,
...), so a directory whose tensors carry the prefix loads too; the h.N.attn.bias / masked_bias buffers
of older checkpoints are ignored. Generation keeps each layer's keys and values (a KV cache), so
each new token is one query over the cache. Needs only torch.
"""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from spark_attention_reference import read_safetensors

__all__ = ["GPT2", "load_gpt2"]

ACTIVATIONS = ("gelu_new", "gelu")


class Conv1D(nn.Module):
    """GPT-2's projection: y = x W + b with W stored [in, out] (the transpose of nn.Linear's)."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(*x.shape[:-1], -1)


def gelu_new(u):
    return 0.5 * u * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * u.pow(3))))


class _Attention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = Conv1D(hidden, 3 * hidden)
        self.c_proj = Conv1D(hidden, hidden)

    def forward(self, x, past):
        """x: [T, E] of the new tokens; past: (keys, values) [H, P, D] of the earlier ones, or None."""
        t, e = x.shape
        d = e // self.heads
        q, k, v = (part.reshape(t, self.heads, d).transpose(0, 1) for part in self.c_attn(x).split(e, dim=1))
        if past is not None:
            k, v = torch.cat([past[0], k], 1), torch.cat([past[1], v], 1)
        # query i (position P + i) sees keys 0 .. P + i
        first = k.shape[1] - t
        mask = torch.ones(t, k.shape[1], dtype=torch.bool).tril(first)
        s = (q @ k.transpose(1, 2)) / math.sqrt(d)
        att = torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ v
        return self.c_proj(att.transpose(0, 1).reshape(t, e)), (k, v)


class _Mlp(nn.Module):
    def __init__(self, hidden, inner, activation):
        super().__init__()
        self.c_fc = Conv1D(hidden, inner)
        self.c_proj = Conv1D(inner, hidden)
        self.act = gelu_new if activation == "gelu_new" else F.gelu

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class _Block(nn.Module):
    def __init__(self, hidden, heads, inner, eps, activation):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden, eps=eps)
        self.attn = _Attention(hidden, heads)
        self.ln_2 = nn.LayerNorm(hidden, eps=eps)
        self.mlp = _Mlp(hidden, inner, activation)

    def forward(self, x, past):
        a, present = self.attn(self.ln_1(x), past)
        x = x + a
        return x + self.mlp(self.ln_2(x)), present


class GPT2(nn.Module):
    """GPT-2's decoder and LM head on one unpadded row at a time, with an optional KV cache."""

    def __init__(self, layers, hidden, heads, positions, vocab, inner=None, eps=1e-5, activation="gelu_new",
                 tied=True):
        super().__init__()
        if hidden % heads != 0:
            raise ValueError("n_embd %d is not a multiple of n_head %d" % (hidden, heads))
        if activation not in ACTIVATIONS:
            raise ValueError("activation_function must be one of %s, got %r" % (", ".join(ACTIVATIONS), activation))
        self.positions = positions
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(positions, hidden)
        self.h = nn.ModuleList([_Block(hidden, heads, inner or 4 * hidden, eps, activation) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(hidden, eps=eps)
        self.lm_head = None if tied else nn.Linear(hidden, vocab, bias=False)

    def forward(self, ids, past=None):
        """Logits [T, V] of the T new ids given the cache of the earlier ones, and the grown cache.

        ids: 1-D ids (list or tensor); past: the list of per-layer (keys, values) a previous call
        returned, or None for a row's start.
        """
        ids = torch.as_tensor(ids, dtype=torch.long)
        start = 0 if past is None else past[0][0].shape[1]
        if start + ids.shape[0] > self.positions:
            raise ValueError("%d positions asked of a model of n_positions %d" % (start + ids.shape[0], self.positions))
        x = self.wte(ids) + self.wpe(torch.arange(start, start + ids.shape[0]))
        present = []
        for n, block in enumerate(self.h):
            x, kv = block(x, None if past is None else past[n])
            present.append(kv)
        h = self.ln_f(x)
        head = self.wte.weight if self.lm_head is None else self.lm_head.weight
        return h @ head.T, present

    @torch.no_grad()
    def token_log_probs(self, rows, stride=None):
        """Per row, the L-1 natural-log probabilities of ids[t] given ids[<t] (float64, t = 1 .. L-1).

        A row longer than n_positions is cut as Hugging Face's perplexity recipe cuts it, and as
        the library's GptDecoder.tokenLogProbs: windows [b, min(b + n_positions, L)) for b = 0,
        stride, 2 stride, ... until one reaches L, each run from position 0 and scoring the tokens
        the windows before it did not, [max(previous end, b + 1), end). stride (in [1, n_positions
        - 1]) is needed only for such rows.
        """
        out = []
        for r, row in enumerate(rows):
            ids = torch.as_tensor(row, dtype=torch.long)
            length = ids.shape[0]
            if length > self.positions and not (stride and 1 <= stride < self.positions):
                raise ValueError("row %d: %d ids exceed n_positions %d and need a stride in [1, %d], got %r"
                                 % (r, length, self.positions, self.positions - 1, stride))
            parts, previous_end, begin = [], 0, 0
            while True:
                end = min(begin + self.positions, length)
                first = max(previous_end, begin + 1)
                if first < end:
                    logits, _ = self(ids[begin:end])
                    lp = torch.log_softmax(logits.double(), -1)
                    at = torch.arange(first, end)  # scored positions, each predicted one before
                    parts.append(lp[at - 1 - begin].gather(1, ids[at][:, None])[:, 0])
                previous_end = end
                if end >= length:
                    break
                begin += stride
            out.append(torch.cat(parts) if parts else torch.zeros(0, dtype=torch.float64))
        return out

    @torch.no_grad()
    def generate_greedy(self, prompts, max_new_tokens, eos_id=None):
        """Per prompt, max_new_tokens new ids, each the argmax of the last logits (stopping after eos_id)."""
        if max_new_tokens < 1:
            raise ValueError("max_new_tokens must be >= 1, got %r" % max_new_tokens)
        out = []
        for prompt in prompts:
            if len(prompt) == 0:
                raise ValueError("an empty prompt has no last token to continue from")
            if len(prompt) + max_new_tokens > self.positions:
                raise ValueError("prompt of %d ids + %d new ids exceeds n_positions %d"
                                 % (len(prompt), max_new_tokens, self.positions))
            logits, past = self(prompt)
            new = []
            for _ in range(max_new_tokens):
                token = int(torch.argmax(logits[-1]))
                new.append(token)
                if token == eos_id or len(new) == max_new_tokens:
                    break
                logits, past = self([token], past)
            out.append(new)
        return out


def load_gpt2(directory):
    """The GPT2 of a model directory (config.json + model.safetensors) with its weights, in eval mode."""
    with open(os.path.join(directory, "config.json")) as f:
        config = json.load(f)
    for key in ("n_layer", "n_embd", "n_head", "n_positions", "vocab_size"):
        if key not in config:
            raise ValueError("%s/config.json: no %s" % (directory, key))
    state, _ = read_safetensors(os.path.join(directory, "model.safetensors"))
    state = {(k[len("transformer."):] if k.startswith("transformer.") else k): v for k, v in state.items()}
    state = {k: v for k, v in state.items() if not (k.endswith(".attn.bias") or k.endswith(".attn.masked_bias"))}
    tied = "lm_head.weight" not in state
    model = GPT2(config["n_layer"], config["n_embd"], config["n_head"], config["n_positions"], config["vocab_size"],
                 config.get("n_inner"), config.get("layer_norm_epsilon", 1e-5),
                 config.get("activation_function", "gelu_new"), tied)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ValueError("%s/model.safetensors: missing %s, unexpected %s" % (directory, missing, unexpected))
    return model.eval()
