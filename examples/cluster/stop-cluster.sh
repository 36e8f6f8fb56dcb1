#!/usr/bin/env bash
# Stops the cluster that start-cluster.sh started, by the pids it wrote: workers first (each
# stops its executors), then the master. SIGTERM, then SIGKILL after 20 s; executors left behind
# by a killed worker are stopped by their own pids. Pid files of dead processes are removed.
set -euo pipefail

# shellcheck source=cluster-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/cluster-env.sh"

shopt -s nullglob
pid_files=("$cluster_dir"/worker-*.pid "$cluster_dir"/master.pid)
if [ "${#pid_files[@]}" -eq 0 ]; then
  echo "stop-cluster: no cluster pid files in $cluster_dir; nothing to stop"
  exit 0
fi

# Stops the daemon of pid file $1 and whatever processes it started.
stop_daemon() {
  local file="$1" name pid children=()
  name="$(basename "$file" .pid)"
  if ! cluster_alive "$file"; then
    rm -f "$file"; return
  fi
  pid="$(cat "$file")"
  mapfile -t children < <(ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ' || true)
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "stop-cluster: $name (pid $pid) did not stop on SIGTERM; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  for child in "${children[@]}"; do
    # Executors outlive a killed worker for a moment; stop those that are still ours.
    if [ -r "/proc/$child/cmdline" ] && tr '\0' ' ' < "/proc/$child/cmdline" | grep -q 'org\.apache\.spark\.'; then
      kill -KILL "$child" 2>/dev/null || true
    fi
  done
  rm -f "$file"
  echo "stopped $name (pid $pid)"
}

for file in "${pid_files[@]}"; do
  stop_daemon "$file"
done
