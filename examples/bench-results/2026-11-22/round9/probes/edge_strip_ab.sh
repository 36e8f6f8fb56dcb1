#!/usr/bin/env bash
# alternating JVMs: EDGE_STRIP values; each JVM times non-causal and causal round-robin (--compare-causal)
out=$1; pairs=$2; shift 2; strips="$*"
mkdir -p $out
for i in $(seq 1 $pairs); do
  for e in $strips; do
    JAVA_OPTS="-Dsparkattention.edgeStrip=$e" /tmp/s9/edge/examples/bin/spark-attention bench --seq-len 256,512,1024 --head-dim 64 \
      --batch-heads 16 --threads 2 --repeat 11 --compare-causal --tile-ops blas 2>/dev/null | grep '^{' > $out/edge$e-$i.jsonl
    python3 - $out/edge$e-$i.jsonl $e <<'PY'
import json,sys
L=[json.loads(l) for l in open(sys.argv[1])]
by={(d['seq_len'],d['causal']):d['median_ms'] for d in L}
print('strip',sys.argv[2],' '.join(f"{n}: {by[(n,True)]/by[(n,False)]:.3f}" for n in (256,512,1024)), ' noncausal ms', ' '.join(f"{by[(n,False)]:.1f}" for n in (256,512,1024)), flush=True)
PY
  done
done
