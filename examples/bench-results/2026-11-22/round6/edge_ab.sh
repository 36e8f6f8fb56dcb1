#!/bin/bash
out=$1; pairs=${2:-3}
for i in $(seq 1 $pairs); do
  for es in 32 16 8; do
    echo "# edge $es $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out
    JAVA_OPTS="-Dsparkattention.edgeStrip=$es" /tmp/s6/edge/examples/bin/spark-attention bench --seq-len 256,512,1024 --head-dim 64 --batch-heads 16 --threads 2 --repeat 15 --compare-causal --tile-ops blas 2>/dev/null | grep '^{' | sed "s/^/$es /" >> $out
  done
done
