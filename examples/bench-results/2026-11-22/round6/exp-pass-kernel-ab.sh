#!/bin/bash
# alternate old/new builds: bench vector,blas at 1024,2048 (2 threads)
out=$1; shift; pairs=${1:-3}
for i in $(seq 1 $pairs); do
  for side in old new; do
    root=/work/main; [ $side = old ] && root=/tmp/ab_old
    echo "# $side $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out
    $root/examples/bin/spark-attention bench --seq-len 512,1024,2048 --head-dim 64 --batch-heads 16 --threads 2 --repeat 9 --tile-ops vector,blas 2>/dev/null | python3 -c "
import sys,json
for l in sys.stdin:
    j=json.loads(l); print('$side', j['seq_len'], j['tile_ops'][:12], j['gflops'])" >> $out
  done
done
