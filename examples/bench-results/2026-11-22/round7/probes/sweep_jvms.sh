#!/bin/bash
# Alternating JVMs, one block configuration each: OUT ROUNDS N-LIST (env CFGS="128x128 256x256 ...", OPS=blas|vector).
# alternating JVMs: block sizes, one tile-ops path
OUT=$1; ROUNDS=${2:-3}; N=${3:-1024,2048}; OPS=${OPS:-blas}
CFGS=${CFGS:-"128x128 128x256 256x128 256x256"}
for r in $(seq 1 $ROUNDS); do
 for cfg in $CFGS; do
  bq=${cfg%x*}; bk=${cfg#*x}
  "$(dirname "$0")/../../../../bin/spark-attention" bench --seq-len $N --head-dim 64 --batch-heads 16 --threads 2 --repeat 9 --tile-ops $OPS --block-q $bq --block-k $bk $EXTRA 2>/dev/null | sed "s/^/{\"bq\":$bq,\"bk\":$bk,\"round\":$r} /" >> $OUT
 done
done
