#!/usr/bin/env bash
# A local cluster on this machine, as plain processes (npm run cluster:up / cluster:down):
#   up    engines from infra/, 3 actor hosts, then edges on EDGE_PORTS (default 9991,9992);
#         returns once every edge serves, and leaves everything running.
#   down  stops the edges and hosts (by pid), then the engines.
# State (pids, logs, the edges' data folder) lives in CLUSTER_DIR, default ${TMPDIR:-/tmp}/chat-cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
dir="${CLUSTER_DIR:-${TMPDIR:-/tmp}/chat-cluster}"
hosts="${ACTOR_HOSTS:-3}"
IFS=',' read -r -a ports <<<"${EDGE_PORTS:-9991,9992}"
main="$root/packages/server/dist/src/main.js"

say() { echo "cluster: $*" >&2; }

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# start NAME PIDFILE ENV... : runs main.js start in the background with the given environment
# (and node flags from CLUSTER_NODE_FLAGS, split on spaces, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
start() {
  local name="$1" pidfile="$dir/$1.pid"
  shift
  if alive "$pidfile"; then say "$name already running (pid $(cat "$pidfile"))"; return; fi
  # shellcheck disable=SC2086 # flags are words
  env "$@" setsid node --max-semi-space-size=64 ${CLUSTER_NODE_FLAGS:-} "$main" start >"$dir/$name.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  say "$name started (pid $!, log $dir/$name.log)"
}

wait_http() {
  local url="$1" name="$2" deadline=$((SECONDS + ${CLUSTER_WAIT_TIMEOUT:-120}))
  until curl -fsS -o /dev/null "$url" 2>/dev/null; do
    if ! alive "$dir/$name.pid"; then say "$name died; its log:"; tail -20 "$dir/$name.log" >&2; exit 1; fi
    if [ $SECONDS -gt $deadline ]; then say "$name did not answer $url in time; log: $dir/$name.log"; exit 1; fi
    sleep 0.5
  done
}

up() {
  mkdir -p "$dir"
  set -a
  eval "$(bash infra/up.sh)"
  set +a
  local common=(CLUSTER_NAMESPACE="${CLUSTER_NAMESPACE:-chat}" NATS_URL="$NATS_URL" KAFKA_BROKERS="$KAFKA_BROKERS"
    CASSANDRA_CONTACT_POINTS="$CASSANDRA_CONTACT_POINTS" SHARD_COUNT="${SHARD_COUNT:-16}"
    LEASE_MS="${LEASE_MS:-5000}" CHAT_MODE="${CHAT_MODE:-development}" LOG_LEVEL="${LOG_LEVEL:-info}")
  for i in $(seq 1 "$hosts"); do
    start "actor-host-$i" "${common[@]}" CHAT_ROLE=actor-host HOST_ID="actor-host-$i"
  done
  # Edges share the key that signs temporary upload URLs: any of them may serve one.
  local url_key="${TEMPORARY_URL_KEY:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}"
  for port in "${ports[@]}"; do
    start "edge-$port" "${common[@]}" CHAT_ROLE=edge PORT="$port" DATA_DIR="$dir/edge-data" TEMPORARY_URL_KEY="$url_key" \
      EXTERNAL_URL="${EXTERNAL_URL:-http://127.0.0.1:${ports[0]}}"
    # The first edge creates the development realm; the others find it.
    wait_http "http://127.0.0.1:$port/api/v1/server_settings" "edge-$port"
  done
  say "serving at $(printf 'http://127.0.0.1:%s ' "${ports[@]}")(stop with npm run cluster:down)"
}

stop_pid() {
  local pidfile="$1" pid
  alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

down() {
  # Edges first, so no request arrives while the hosts hand their shards off.
  for pidfile in "$dir"/edge-*.pid; do [ -e "$pidfile" ] && stop_pid "$pidfile"; done
  for pidfile in "$dir"/actor-host-*.pid; do [ -e "$pidfile" ] && stop_pid "$pidfile"; done
  if [ "${KEEP_ENGINES:-}" != 1 ]; then bash infra/down.sh; fi
  say "stopped"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: scripts/cluster.sh up|down" >&2; exit 2 ;;
esac
