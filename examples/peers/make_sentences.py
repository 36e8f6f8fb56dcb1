#!/usr/bin/env python3
"""Writes --count generated sentences as JSON lines for `spark-attention embed`: {"id": i, "text": "..."}.

The sentences are Austen-like without being Austen's: each one's length in words is drawn from the sentence
lengths of the bundled corpus (examples/data/austen, sentences cut at . ! ? and capped at --max-words), its words
from the corpus' vocabulary by their frequency there; the first word is capitalised and the sentence ends with a
full stop. Seeded, so the same arguments give the same bytes. For the 200,000-sentence run of BENCHMARKS.md:

    python3 examples/peers/make_sentences.py --out /tmp/sentences-200k.jsonl --count 200000
    examples/bin/spark-attention embed --input /tmp/sentences-200k.jsonl --output /tmp/sentences-200k-out.jsonl
"""
import argparse
import bisect
import itertools
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SENTENCE_END = re.compile(r"(?<=[.!?])[\"')_]?\s+")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def corpus_statistics(corpus, max_words):
    """(sentence lengths in words, capped; words; their cumulative counts) over every book under corpus."""
    lengths, counts = [], {}
    for name in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, name)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"\s+", " ", f.read())
        for sentence in SENTENCE_END.split(text):
            words = WORD.findall(sentence)
            if not words:
                continue
            lengths.append(min(len(words), max_words))
            for w in words:
                w = w.lower() if w != "I" else w
                counts[w] = counts.get(w, 0) + 1
    if not lengths:
        sys.exit("make_sentences.py: corpus %s has no sentence" % corpus)
    words = sorted(counts)
    return lengths, words, list(itertools.accumulate(counts[w] for w in words))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="the .jsonl file to write (refused if it exists)")
    p.add_argument("--count", type=int, default=200000, help="sentences (default 200000)")
    p.add_argument("--corpus", default=os.path.join(HERE, "..", "data", "austen"),
                   help="directory of plain-text books (default: the bundled Austen corpus)")
    p.add_argument("--max-words", type=int, default=120, help="longest sentence in words (default 120)")
    p.add_argument("--seed", type=int, default=23)
    a = p.parse_args()
    if a.count < 0 or a.max_words < 1:
        sys.exit("make_sentences.py: need --count >= 0 and --max-words >= 1")
    if os.path.exists(a.out):
        sys.exit("make_sentences.py: %s exists; give a new name" % a.out)
    lengths, words, cumulative = corpus_statistics(a.corpus, a.max_words)
    total = cumulative[-1]
    rng = random.Random(a.seed)
    tmp = a.out + ".tmp"
    n_words = 0
    with open(tmp, "w", encoding="utf-8") as f:
        for i in range(a.count):
            n = rng.choice(lengths)
            chosen = [words[bisect.bisect_right(cumulative, rng.randrange(total))] for _ in range(n)]
            chosen[0] = chosen[0][:1].upper() + chosen[0][1:]
            n_words += n
            f.write(json.dumps({"id": i, "text": " ".join(chosen) + "."}) + "\n")
    os.replace(tmp, a.out)
    print("wrote %s: %d sentences, %d words (mean %.1f; lengths from %d corpus sentences, %d words of vocabulary)"
          % (a.out, a.count, n_words, n_words / max(1, a.count), len(lengths), len(words)))


if __name__ == "__main__":
    main()
