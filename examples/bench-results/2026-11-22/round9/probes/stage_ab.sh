#!/usr/bin/env bash
# usage: cmp.sh OUT PAIRS N ROWS PARTS -- alternating JVMs (old, new), each: Spark stage and kernel round-robin (--compare-kernel)
out=$1; pairs=$2; n=${3:-512}; rows=${4:-64}; parts=${5:-8}; rep=${REPEAT:-15}
old=${OLD:-/tmp/s9/old}; new=${NEW:-/work/main}
mkdir -p "$out"
for i in $(seq 1 "$pairs"); do
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    JAVA_OPTS="-Xmx4g ${EXTRA_OPTS:-}" "$dir/examples/bin/spark-attention" bench --spark --master 'local[2]' --strategy batch \
      --rows $rows --partitions $parts --cache-input --seq-len $n --head-dim 64 --batch-heads 16 --repeat $rep --compare-kernel \
      2>/dev/null | grep '^{' > "$out/$side-$i.jsonl"
  done
  python3 - "$out" "$i" <<'PY'
import json,sys
out,i=sys.argv[1],sys.argv[2]
def r(side):
    L=[json.loads(l) for l in open(f'{out}/{side}-{i}.jsonl')]
    return L[0]['median_ms'],L[1]['median_ms'],L[0]['throughput_vs_kernel']
o=r('old'); n=r('new')
print(f'pair {i}: old spark {o[0]:.0f} kernel {o[1]:.0f} ratio {o[2]:.3f} | new spark {n[0]:.0f} kernel {n[1]:.0f} ratio {n[2]:.3f}',flush=True)
PY
done
