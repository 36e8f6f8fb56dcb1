#!/bin/bash
out=$1
for i in 1 2; do
  echo "# spark rows 256 $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out
  JAVA_OPTS="-Xmx8g" /work/main/examples/bin/spark-attention bench --spark --master 'local[2]' --strategy batch --rows 256 --partitions 8 --cache-input --seq-len 512 --head-dim 64 --batch-heads 16 --repeat 5 2>/dev/null | grep '^{' | sed "s/^/spark /" >> $out
  echo "# kernel 4096 heads $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out
  JAVA_OPTS="-Xmx8g" /work/main/examples/bin/spark-attention bench --seq-len 512 --head-dim 64 --batch-heads 4096 --threads 2 --repeat 5 2>/dev/null | grep '^{' | sed "s/^/kernel /" >> $out
done
