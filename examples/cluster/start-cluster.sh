#!/usr/bin/env bash
# Starts a standalone Spark cluster on this machine, built from the project's own Maven
# dependencies (no Spark download): a master at spark://127.0.0.1:7077 and WORKERS workers, each
# offering CORES cores and MEMORY to executors. Everything binds to 127.0.0.1; the master's REST
# submission server is off. Pids are written to examples/target/cluster/*.pid, logs next to them;
# examples/cluster/stop-cluster.sh stops the daemons by those pids.
#
#   examples/cluster/start-cluster.sh [WORKERS=2] [CORES=1] [MEMORY=1g]
#   examples/bin/spark-attention bench --spark ... --master spark://127.0.0.1:7077
#   examples/cluster/stop-cluster.sh
#
# Returns once the master and every worker are registered and alive (polled through the master's
# web UI JSON), or fails with the log of the daemon that did not come up.
set -euo pipefail

workers="${1:-2}"
cores="${2:-1}"
memory="${3:-1g}"
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || { echo "start-cluster: WORKERS must be a positive integer, got '$workers'" >&2; exit 2; }
[[ "$cores" =~ ^[1-9][0-9]*$ ]] || { echo "start-cluster: CORES must be a positive integer, got '$cores'" >&2; exit 2; }
[[ "$memory" =~ ^[1-9][0-9]*[mMgG]$ ]] || { echo "start-cluster: MEMORY must look like 1g or 1024m, got '$memory'" >&2; exit 2; }

# shellcheck source=cluster-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"
JAVA="$(cluster_java)"

if cluster_alive "$cluster_dir/master.pid"; then
  echo "start-cluster: a master is already running (pid $(cat "$cluster_dir/master.pid")); stop it first with examples/cluster/stop-cluster.sh" >&2
  exit 1
fi
for port in "$master_port" "$webui_port"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "start-cluster: port $port on 127.0.0.1 is already in use (set SPARK_MASTER_PORT / SPARK_MASTER_WEBUI_PORT)" >&2
    exit 1
  fi
done

# Build what the cluster needs on first use: Spark's jars and the JVM flags.
if [ ! -d "$SPARK_HOME/jars" ] || [ ! -f "$cluster_target/launcher/jvm-flags" ]; then
  echo "start-cluster: building (first use)..." >&2
  mkdir -p "$cluster_target"
  (
    flock 9
    JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$JAVA")")")" \
      mvn -q -B -f "$cluster_root/pom.xml" -DskipTests package >&2
  ) 9>"$cluster_target/.build.lock" \
    || { echo "start-cluster: build failed (run: mvn -f $cluster_root/pom.xml -DskipTests package)" >&2; exit 1; }
fi
read -r -a flags < "$cluster_target/launcher/jvm-flags"

mkdir -p "$cluster_dir/logs"
rm -f "$cluster_dir"/*.pid
started=()
cleanup_on_failure() {
  for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
}

# Starts daemon NAME (pid file NAME.pid, log logs/NAME.log) with the given main class and arguments.
start_daemon() {
  local name="$1"; shift
  nohup "$JAVA" "${flags[@]}" -Xmx"$daemon_memory" -cp "$SPARK_HOME/jars/*" \
    -Dspark.master.rest.enabled=false "$@" > "$cluster_dir/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$cluster_dir/$name.pid"
  started+=("$!")
}

# The master's state as its web UI reports it (empty until the UI answers). curl when there is
# one, else a plain HTTP/1.0 request through bash's /dev/tcp.
master_json() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 2 "http://127.0.0.1:$webui_port/json/" 2>/dev/null || true
  else
    (
      exec 3<>"/dev/tcp/127.0.0.1/$webui_port" || exit 0
      printf 'GET /json/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
      timeout 2 cat <&3
    ) 2>/dev/null || true
  fi
}

# Waits up to 90 s for CONDITION (a function) while the daemons NAME... stay alive.
await() {
  local what="$1" condition="$2"; shift 2
  for _ in $(seq 1 180); do
    if "$condition"; then return 0; fi
    for name in "$@"; do
      if ! cluster_alive "$cluster_dir/$name.pid"; then
        echo "start-cluster: $name exited while waiting for $what; its log ($cluster_dir/logs/$name.log):" >&2
        tail -n 30 "$cluster_dir/logs/$name.log" >&2
        cleanup_on_failure; exit 1
      fi
    done
    sleep 0.5
  done
  echo "start-cluster: timed out waiting for $what; the logs are in $cluster_dir/logs; last lines of the master's:" >&2
  tail -n 30 "$cluster_dir/logs/master.log" >&2
  cleanup_on_failure; exit 1
}

master_alive() { master_json | grep -q '"status" *: *"ALIVE"'; }
alive_workers() { master_json | grep -o '"aliveworkers" *: *[0-9]*' | grep -o '[0-9]*$' || echo 0; }
workers_alive() { [ "$(alive_workers)" -ge "$workers" ]; }

start_daemon master org.apache.spark.deploy.master.Master \
  --host 127.0.0.1 --port "$master_port" --webui-port "$webui_port"
await "the master at $master_url" master_alive master

names=()
for i in $(seq 1 "$workers"); do
  names+=("worker-$i")
  mkdir -p "$cluster_dir/work/worker-$i"
  start_daemon "worker-$i" org.apache.spark.deploy.worker.Worker \
    --host 127.0.0.1 --cores "$cores" --memory "$memory" --work-dir "$cluster_dir/work/worker-$i" \
    --webui-port "$((webui_port + i))" "$master_url"
done
await "$workers alive workers" workers_alive master "${names[@]}"

echo "cluster up: $master_url, $workers worker(s) × $cores core(s), $memory each for executors"
echo "  web UI:   http://127.0.0.1:$webui_port"
echo "  logs:     $cluster_dir/logs (executors: $cluster_dir/work)"
echo "  run:      examples/bin/spark-attention <command> ... --master $master_url"
echo "  stop:     examples/cluster/stop-cluster.sh"
