#!/bin/bash
out=$1; pairs=${2:-3}
for i in $(seq 1 $pairs); do
  order="off on"; [ $((i%2)) = 0 ] && order="on off"
  for side in $order; do
    opts=""; [ $side = on ] && opts="-XX:+UseTransparentHugePages"
    echo "# thp $side $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out
    JAVA_OPTS="$opts" /work/main/examples/bin/spark-attention bench --seq-len 512,1024,2048 --head-dim 64 --batch-heads 16 --threads 2 --repeat 9 --tile-ops blas,vector 2>/dev/null | grep '^{' | sed "s/^/$side /" >> $out
  done
done
