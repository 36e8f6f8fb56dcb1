#!/usr/bin/env bash
out=$1; cd /work/main
for i in 1 2 3; do
  date -u +%T
  JAVA_OPTS="-Xmx4g" examples/bin/spark-attention bench --spark --master 'local[2]' --strategy batch --rows 64 --partitions 8 --cache-input --seq-len 512 --head-dim 64 --batch-heads 16 --repeat 15 --compare-kernel 2>/dev/null | grep '^{' > $out/spark-512-p8-$i.jsonl
  JAVA_OPTS="-Xmx4g" examples/bin/spark-attention bench --spark --master 'local[2]' --strategy batch --rows 8 --cache-input --seq-len 2048 --head-dim 64 --batch-heads 16 --repeat 11 --compare-kernel 2>/dev/null | grep '^{' > $out/spark-2048-$i.jsonl
done
JAVA_OPTS="-Xmx4g" examples/bin/spark-attention bench --spark --master 'local[2]' --strategy batch --rows 64 --cache-input --seq-len 512 --head-dim 64 --batch-heads 16 --repeat 15 --compare-kernel 2>/dev/null | grep '^{' > $out/spark-512-p64-1.jsonl
JAVA_OPTS="-Xmx4g" examples/bin/spark-attention bench --spark --master 'local[2]' --strategy batch --rows 64 --partitions 8 --cache-input --seq-len 512 --head-dim 64 --batch-heads 16 --repeat 60 --compare-kernel 2>/dev/null | grep '^{' > $out/spark-512-p8-long.jsonl
date -u +%T
