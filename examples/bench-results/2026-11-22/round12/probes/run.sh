#!/usr/bin/env bash
# Runs a round-12 probe in package io.sparkattention.kernel (AB, AB2) against the built classes.
#   javac --add-modules jdk.incubator.vector -cp spark-attention/target/classes -d out probes/AB.java ...
#   OUT=out MAIN=AB JOPTS=-Dv=VectorTileOps,Pack2 probes/run.sh 512 1 200 [causal]
# (Pack2, PackV and FlashAttention2 are the files of ../tried/*.diff applied to copies of the originals.)
ROOT=${ROOT:-$(cd "$(dirname "$0")/../../../../.." && pwd)}
. $ROOT/conf/spark-env.sh
CP=${OUT:-out}:$ROOT/spark-attention/target/classes:$(cat $ROOT/examples/target/launcher/classpath)
exec java -XX:+UseParallelGC $(cat $ROOT/examples/target/launcher/jvm-flags) ${JOPTS:-} -cp "$CP" io.sparkattention.kernel.${MAIN:-AB} "$@" 2>&1 | grep -v WARNING
