"""Log-probabilities and greedy ids of spark_attention_gpt's module on model directories, for PyTorchGptModuleTest.

Usage: python3 gpt_outputs.py MODULE_DIR JOB.json OUT.json
JOB: [{"name", "dir", "rows" (lists of ids), "stride" (or null), "prompts" (lists of ids), "max_new_tokens"}]
OUT: {name: {"log_probs": per row the L-1 values, "greedy": per prompt the new ids}}.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
from spark_attention_gpt import load_gpt2  # noqa: E402

with open(sys.argv[2]) as f:
    job = json.load(f)
out = {}
for case in job:
    model = load_gpt2(case["dir"])
    out[case["name"]] = {
        "log_probs": [row.tolist() for row in model.token_log_probs(case["rows"], case["stride"])],
        "greedy": model.generate_greedy(case["prompts"], case["max_new_tokens"]) if case["prompts"] else [],
    }
with open(sys.argv[3], "w") as f:
    json.dump(out, f)
