"""Logits of spark_attention_reference's module on exports, for PyTorchReferenceModuleTest.

Usage: python3 reference_logits.py MODULE_DIR JOB.json OUT.json
JOB: [{"name", "export", "x" (B x L x E, padded), "lengths"}]; OUT: {name: B x K logits}.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import torch  # noqa: E402
from spark_attention_reference import load_classifier  # noqa: E402

with open(sys.argv[2]) as f:
    job = json.load(f)
out = {}
for case in job:
    model = load_classifier(case["export"])
    with torch.no_grad():
        logits = model(torch.tensor(case["x"], dtype=torch.float32), torch.tensor(case["lengths"]))
    out[case["name"]] = logits.double().tolist()
with open(sys.argv[3], "w") as f:
    json.dump(out, f)
