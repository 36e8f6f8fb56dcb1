#!/usr/bin/env bash
# Shared settings of start-cluster.sh and stop-cluster.sh. Sourced, never executed.
#
# Environment (Spark's own names; defaults in brackets):
#   SPARK_MASTER_PORT [7077], SPARK_MASTER_WEBUI_PORT [8080] (workers' UIs follow it: 8081, 8082...),
#   SPARK_DAEMON_MEMORY [512m] heap of the master and worker daemons (not of executors),
#   SPARK_CLUSTER_DIR [examples/target/cluster] pid files, logs, worker directories.

cluster_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster_target="$cluster_root/examples/target"

export SPARK_CONF_DIR="${SPARK_CONF_DIR:-$cluster_root/conf}"
if [ -f "$SPARK_CONF_DIR/spark-env.sh" ]; then
  # shellcheck source=../../conf/spark-env.sh
  . "$SPARK_CONF_DIR/spark-env.sh"
fi

# The daemons' SPARK_HOME: Spark's jars from this build (examples/pom.xml copies them). Workers
# pass it on to executors, whose launcher also needs the Scala version (else "Cannot find any
# build directories").
export SPARK_HOME="$cluster_target/spark-home"
export SPARK_SCALA_VERSION=2.13

master_port="${SPARK_MASTER_PORT:-7077}"
webui_port="${SPARK_MASTER_WEBUI_PORT:-8080}"
daemon_memory="${SPARK_DAEMON_MEMORY:-512m}"
cluster_dir="${SPARK_CLUSTER_DIR:-$cluster_target/cluster}"
master_url="spark://127.0.0.1:$master_port"

# A Java 17 (Spark 4.1 + Hadoop do not run fully on newer JDKs).
cluster_java() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    echo "$JAVA_HOME/bin/java"; return
  fi
  if command -v java >/dev/null 2>&1 && java -version 2>&1 | grep -q 'version "17'; then
    command -v java; return
  fi
  for j in /usr/lib/jvm/java-17-openjdk-*/bin/java /usr/lib/jvm/*17*/bin/java; do
    if [ -x "$j" ]; then echo "$j"; return; fi
  done
  echo "cluster: no java found (install a JDK 17)" >&2
  exit 2
}

# True when pid file $1 names a live Spark daemon of ours (a recycled pid is not ours).
cluster_alive() {
  local pid
  [ -f "$1" ] || return 1
  pid="$(cat "$1")"
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q 'org\.apache\.spark\.deploy\.'
}
