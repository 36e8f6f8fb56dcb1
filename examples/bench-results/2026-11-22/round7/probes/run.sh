#!/bin/bash
# Runs Blocks.java (the kernel with several tile sizes, round-robin in one JVM) against the
# library jar and the launcher's classpath. From the repository root, after
# `examples/bin/spark-attention bench --help` has built both:
#   examples/bench-results/2026-11-22/round7/probes/run.sh N REPS CAUSAL 128x128 256x256 ...
# JOPTS adds JVM options (e.g. -Dsparkattention.tileops=vector).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../../../.." && pwd)"
CP="$ROOT/spark-attention/target/spark-attention-0.1.0-SNAPSHOT.jar:$(cat "$ROOT/examples/target/launcher/classpath")"
OUT="${TMPDIR:-/tmp}/blocks-probe"
mkdir -p "$OUT"
javac -nowarn --add-modules jdk.incubator.vector -cp "$CP" -d "$OUT" "$HERE/Blocks.java" 2>/dev/null
export OPENBLAS_NUM_THREADS=1
# shellcheck disable=SC2086,SC2046
exec java $(cat "$ROOT/examples/target/launcher/jvm-flags") -XX:+UseParallelGC -Xmx4g ${JOPTS:-} \
  -cp "$OUT:$CP" Blocks "$@"
