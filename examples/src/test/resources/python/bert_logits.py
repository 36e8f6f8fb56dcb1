"""Logits of spark_attention_bert's module on exports, for PyTorchBertModuleTest.

Usage: python3 bert_logits.py MODULE_DIR JOB.json OUT.json
JOB: [{"name", "export", "rows" (lists of token ids)}]; OUT: {name: B x K logits}.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import torch  # noqa: E402
from spark_attention_bert import load_bert_classifier  # noqa: E402

with open(sys.argv[2]) as f:
    job = json.load(f)
out = {}
for case in job:
    model = load_bert_classifier(case["export"])
    with torch.no_grad():
        out[case["name"]] = model(case["rows"]).double().tolist()
with open(sys.argv[3], "w") as f:
    json.dump(out, f)
