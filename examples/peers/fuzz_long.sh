#!/usr/bin/env bash
# The long fuzzing run: every fuzz test that reads outside bytes (safetensors, .npy, the two
# state_dict loaders, ONNX models and the BERT loader behind them, JSON lines and Parquet-shaped
# rows through the attention stages) in Jazzer's fuzzing mode, one JVM at a time, RUNS inputs
# each (default 10^6), with a fixed seed.
# Prints the inputs each reader ran, its wall time and its verdict; logs go to
# spark-attention/target/fuzz-long/. A finding is written by Jazzer into the test's inputs
# directory under spark-attention/src/test/resources (a regression input from then on) and
# printed as FINDING; Jazzer goes on past it (up to KEEP_GOING distinct findings per reader, by
# stack trace), so the count still reaches RUNS.
#
#   examples/peers/fuzz_long.sh                 # 10^6 inputs per reader
#   RUNS=100000 SEED=7 examples/peers/fuzz_long.sh
#   ONLY=NpyFuzzTest examples/peers/fuzz_long.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-1000000}
SEED=${SEED:-1}
ONLY=${ONLY:-}
KEEP_GOING=${KEEP_GOING:-20}
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
. conf/spark-env.sh

TARGETS=(
  "SafeTensorsFuzzTest#anyBytesOpenAndReadOrAreRefusedNamingTheSource"
  "NpyFuzzTest#anyBytesReadAsAFloatArrayOrAreRefusedNamingTheSource"
  "OnnxModelFuzzTest#anyBytesDecodeAsAModelOrAreRefusedNamingTheSource"
  "StateDictFuzzTest#multiHeadAttentionLoadsOrRefusesNamingTheTensor"
  "StateDictFuzzTest#classifierLoadsOrRefusesNamingTheTensor"
  "StageRowsFuzzTest#jsonLinesGoThroughTheStagesOrFailWithRowDataException"
  "StageRowsFuzzTest#catalystRowsGoThroughTheStagesOrFailWithRowDataException"
  "StageRowsFuzzTest#vectorRowsGoThroughTheStageOrFailWithRowDataException"
)

LOGS=spark-attention/target/fuzz-long
mvn -o -B -q -pl spark-attention test-compile || exit 1
mkdir -p "$LOGS"
total_start=$(date +%s)
printf '%-75s %10s %7s  %s\n' "fuzz test" "inputs" "wall s" "verdict"
for target in "${TARGETS[@]}"; do
  if [[ -n "$ONLY" && "$target" != *"$ONLY"* ]]; then
    continue
  fi
  log="$LOGS/${target//#/.}.log"
  start=$(date +%s)
  mvn -o -B -Pfuzz -pl spark-attention surefire:test -Dtest="$target" -Dsurefire.failIfNoSpecifiedTests=false \
    -Dfuzz.runs="$RUNS" -Dfuzz.seed="$SEED" -Dfuzz.keepGoing="$KEEP_GOING" >"$log" 2>&1
  status=$?
  # With keep_going, Jazzer reports each distinct finding (DEDUP_TOKEN) and the test may still pass.
  findings=$(grep -o 'DEDUP_TOKEN: [0-9a-f]*' "$log" | sort -u | wc -l)
  if [[ $status -eq 0 && $findings -eq 0 ]]; then
    verdict="no finding"
  elif [[ $findings -gt 0 ]]; then
    verdict="FINDING: $findings distinct (see $log)"
  else
    verdict="FAILED (see $log)"
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  printf '%-75s %10s %7d  %s\n' "$target" "${runs:-?}" "$(( $(date +%s) - start ))" "$verdict"
done
printf 'total wall time: %d s\n' "$(( $(date +%s) - total_start ))"
