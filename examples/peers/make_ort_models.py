#!/usr/bin/python3
"""Writes the ONNX models the bench command's ONNX Runtime peers run, under
examples/src/main/resources/peers/ort/ (committed: CI has no python).

  mha.onnx, mha_causal.onnx
      one com.microsoft.MultiHeadAttention node (16 heads of 64, [B, S, 1024] query, key and value;
      causal: unidirectional = 1): `bench --peer ort`.
  naive_bhsd.onnx, naive_bhsd_causal.onnx
      the same attention in plain ONNX ops on [B, 16, S, 64] (Transpose, MatMul, Mul, Softmax, MatMul;
      causal: a Trilu/Where mask), the materialising path.
  mha_layer_h{H}.onnx (H in LAYER_HEADS)
      a whole nn.MultiheadAttention forward (self-attention, eval) as one graph: `bench --layer --peer ort`.
      x [B, L, E] times the packed input projection w_in [E, 3E] (PyTorch's in_proj_weight transposed)
      plus b_in [3E], split into q, k and v, MultiHeadAttention with num_heads = H, then the output
      projection w_out [E, E] (out_proj.weight transposed) plus b_out [E]. The weights are graph inputs
      and E is symbolic, so one model serves any weights and any E divisible by H.

Debian's python3-onnx (apt-get install python3-onnx); the output is deterministic, so running it again
leaves the committed files unchanged.

    /usr/bin/python3 examples/peers/make_ort_models.py [--out DIR]
"""
import argparse
import math
import os
import sys

import onnx
from onnx import TensorProto, helper

PRODUCER = "peers/ort/make_models.py"
HEADS = 16
HEAD_DIM = 64
OPSET = 17
LAYER_HEADS = (1, 2, 4, 8, 12, 16)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "main", "resources", "peers", "ort")


def model(graph, name, meta, microsoft):
    opsets = [helper.make_opsetid("", OPSET)]
    if microsoft:
        opsets.append(helper.make_opsetid("com.microsoft", 1))
    m = helper.make_model(graph, opset_imports=opsets, producer_name=PRODUCER)
    m.ir_version = 8
    for key, value in [("peer.model", name)] + meta:
        entry = m.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(m)
    return m


def mha(causal):
    name = "mha_causal" if causal else "mha"
    shape = ["B", "S", HEADS * HEAD_DIM]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in ("query", "key", "value")]
    attrs = {"num_heads": HEADS}
    if causal:
        attrs["unidirectional"] = 1
    node = helper.make_node("MultiHeadAttention", ["query", "key", "value"], ["output"], domain="com.microsoft",
                            **attrs)
    graph = helper.make_graph([node], name, inputs,
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, shape)])
    meta = [("peer.layout", "bsh"), ("peer.causal", "1" if causal else "0"), ("peer.heads", str(HEADS)),
            ("peer.head_dim", str(HEAD_DIM)),
            ("peer.path", "com.microsoft.MultiHeadAttention" + (" unidirectional=1" if causal else ""))]
    return name, model(graph, name, meta, True)


def naive(causal):
    name = "naive_bhsd_causal" if causal else "naive_bhsd"
    shape = ["B", HEADS, "S", HEAD_DIM]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in ("Q", "K", "V")]
    scale = helper.make_tensor("scale_v", TensorProto.FLOAT, [], [1.0 / math.sqrt(HEAD_DIM)])
    nodes = [
        helper.make_node("Transpose", ["K"], ["kT"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["Q", "kT"], ["qk"]),
        helper.make_node("Constant", [], ["scale"], value=scale),
        helper.make_node("Mul", ["qk", "scale"], ["scores"]),
    ]
    if causal:
        one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
        k1 = helper.make_tensor("k1_v", TensorProto.INT64, [1], [1])
        neginf = helper.make_tensor("neginf_v", TensorProto.FLOAT, [], [float("-inf")])
        nodes += [
            helper.make_node("Shape", ["Q"], ["S1"], start=2, end=3),
            helper.make_node("Concat", ["S1", "S1"], ["SS"], axis=0),
            helper.make_node("ConstantOfShape", ["SS"], ["ones"], value=one),
            helper.make_node("Constant", [], ["k1"], value=k1),
            helper.make_node("Trilu", ["ones", "k1"], ["triu"], upper=1),
            helper.make_node("Cast", ["triu"], ["maskb"], to=TensorProto.BOOL),
            helper.make_node("Constant", [], ["neginf"], value=neginf),
            helper.make_node("Where", ["maskb", "neginf", "scores"], ["masked"]),
            helper.make_node("Softmax", ["masked"], ["probs"], axis=-1),
        ]
        path = "plain ops: Transpose,MatMul,Mul,Trilu/Where,Softmax,MatMul"
    else:
        nodes.append(helper.make_node("Softmax", ["scores"], ["probs"], axis=-1))
        path = "plain ops: Transpose,MatMul,Mul,Softmax,MatMul"
    nodes.append(helper.make_node("MatMul", ["probs", "V"], ["O"]))
    graph = helper.make_graph(nodes, name, inputs, [helper.make_tensor_value_info("O", TensorProto.FLOAT, shape)])
    meta = [("peer.layout", "bhsd"), ("peer.causal", "1" if causal else "0"), ("peer.heads", str(HEADS)),
            ("peer.head_dim", str(HEAD_DIM)), ("peer.path", path)]
    return name, model(graph, name, meta, False)


def layer(heads):
    """nn.MultiheadAttention's self-attention forward: packed input projection, attention, output projection."""
    name = "mha_layer_h%d" % heads
    f = TensorProto.FLOAT
    inputs = [
        helper.make_tensor_value_info("x", f, ["B", "L", "E"]),
        helper.make_tensor_value_info("w_in", f, ["E", "E3"]),
        helper.make_tensor_value_info("b_in", f, ["E3"]),
        helper.make_tensor_value_info("w_out", f, ["E", "E"]),
        helper.make_tensor_value_info("b_out", f, ["E"]),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w_in"], ["qkv_raw"]),
        helper.make_node("Add", ["qkv_raw", "b_in"], ["qkv"]),
        helper.make_node("Split", ["qkv"], ["q", "k", "v"], axis=2),
        helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["attended"], domain="com.microsoft", num_heads=heads),
        helper.make_node("MatMul", ["attended", "w_out"], ["y_raw"]),
        helper.make_node("Add", ["y_raw", "b_out"], ["y"]),
    ]
    graph = helper.make_graph(nodes, name, inputs, [helper.make_tensor_value_info("y", f, ["B", "L", "E"])])
    meta = [("peer.layout", "bsh"), ("peer.causal", "0"), ("peer.heads", str(heads)),
            ("peer.path", "MatMul+Add, Split, com.microsoft.MultiHeadAttention, MatMul+Add")]
    return name, model(graph, name, meta, True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=OUT, help="output directory (default: the bench's resources)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    built = [mha(False), mha(True), naive(False), naive(True)] + [layer(h) for h in LAYER_HEADS]
    for name, m in built:
        path = os.path.join(a.out, name + ".onnx")
        with open(path, "wb") as out:
            out.write(m.SerializeToString())
        print("%s: %d bytes" % (os.path.normpath(path), os.path.getsize(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
