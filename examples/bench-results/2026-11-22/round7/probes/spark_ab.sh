#!/bin/bash
# old = a clone of main at 4d192ff in /tmp/ab_old (examples/bin/spark-attention built there), new = this tree.
# alternating old/new: spark stage n=512 rows R p8 cached, and the kernel on the same heads
out=$1; pairs=${2:-3}; rows=${3:-64}; n=${4:-512}; parts=${5:-8}
heads=$((rows*16))
for i in $(seq 1 $pairs); do
  order="old new"; [ $((i%2)) = 0 ] && order="new old"
  for side in $order; do
    root=/work/main; [ $side = old ] && root=/tmp/ab_old
    echo "# $side spark $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out
    JAVA_OPTS="-Xmx3g" $root/examples/bin/spark-attention bench --spark --master 'local[2]' --strategy batch --rows $rows --partitions $parts --cache-input --seq-len $n --head-dim 64 --batch-heads 16 --repeat 7 2>/dev/null | grep '^{' | sed "s/^/$side spark /" >> $out
  done
  for side in $order; do
    root=/work/main; [ $side = old ] && root=/tmp/ab_old
    echo "# $side kernel $i $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> $out
    JAVA_OPTS="-Xmx3g" $root/examples/bin/spark-attention bench --seq-len $n --head-dim 64 --batch-heads $heads --threads 2 --repeat 7 2>/dev/null | grep '^{' | sed "s/^/$side kernel /" >> $out
  done
done
