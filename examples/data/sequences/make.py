"""Writes train.jsonl and test.jsonl: the small seeded classification set of examples/data/README.md."""
import json
import random

rng = random.Random(29)
E, K = 8, 3
prototypes = [[rng.gauss(0, 1) for _ in range(E)] for _ in range(K)]


def row(i, label):
    """L×E Gaussian noise, the label's prototype added at about 40% of the positions."""
    x = []
    for _ in range(rng.randint(4, 12)):
        v = [rng.gauss(0, 0.6) for _ in range(E)]
        if rng.random() < 0.4:
            v = [a + b for a, b in zip(v, prototypes[label])]
        x.append([round(a, 3) for a in v])
    return {"id": i, "query": x, "label": label}


with open("train.jsonl", "w") as f:
    for i in range(150):
        f.write(json.dumps(row(i, i % K), separators=(",", ":")) + "\n")
with open("test.jsonl", "w") as f:
    for i in range(150, 180):
        f.write(json.dumps(row(i, rng.randrange(K)), separators=(",", ":")) + "\n")
