#!/usr/bin/env bash
ROOT=${ROOT:-$(cd "$(dirname "$0")/../../../../.." && pwd)}
. $ROOT/conf/spark-env.sh
CP=${OUT:-out}:$ROOT/spark-attention/target/classes:$(cat $ROOT/examples/target/launcher/classpath)
exec java -XX:+UseParallelGC $(cat $ROOT/examples/target/launcher/jvm-flags) ${JOPTS:-} -cp "$CP" io.sparkattention.kernel.${MAIN:-KernelAB} "$@" 2>&1 | grep -v WARNING
