# shellcheck shell=bash
# Shared helpers for the infra/*.sh engine scripts. Source it; do not run it.
#
# Layout (all overridable through the environment):
#   INFRA_DIR    runtime data, logs, configs, pid files   (default ${TMPDIR:-/tmp}/chat-infra)
#   INFRA_CACHE  downloaded jars, kept between runs        (default ~/.cache/chat-infra)
#   INFRA_HOST   address every engine binds to             (default 127.0.0.1)
#   JAVA         java launcher for Kafka/Cassandra        (default $JAVA_HOME/bin/java or java)

INFRA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
INFRA_DIR="${INFRA_DIR:-${TMPDIR:-/tmp}/chat-infra}"
INFRA_CACHE="${INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chat-infra}"
INFRA_HOST="${INFRA_HOST:-127.0.0.1}"
JAVA="${JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
export INFRA_ROOT INFRA_DIR INFRA_CACHE INFRA_HOST

INFRA_DIR="${INFRA_DIR%/}"
case "$INFRA_DIR" in
  /*) ;;
  *) INFRA_DIR="$PWD/$INFRA_DIR" ;;
esac
case "$INFRA_DIR/" in
  "$(dirname "$INFRA_ROOT")"/*)
    echo "infra: INFRA_DIR ($INFRA_DIR) must be outside the repository" >&2
    exit 2 ;;
esac

# Progress goes to stderr so stdout stays machine readable (up.sh prints env lines there).
log() { printf 'infra: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

now_ms() { date +%s%3N; }
# elapsed START_MS -> "12.3 s"
elapsed() { local d=$(( $(now_ms) - $1 )); printf '%d.%d s' $((d / 1000)) $((d % 1000 / 100)); }

# alive PID: the process exists and is not a zombie (an exited engine stays a zombie
# until its adoptive parent, often pid 1, reaps it).
alive() {
  local st
  st="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  st="${st##*) }"
  [[ -n "$st" && "${st:0:1}" != Z ]]
}

pid_file() { printf '%s/run/%s.pid\n' "$INFRA_DIR" "$1"; }

# Prints the recorded pid of NAME if that process is alive and really is ours
# (its command line mentions INFRA_DIR); guards against pid reuse.
pid_of() {
  local f pid
  f="$(pid_file "$1")"
  [[ -s "$f" ]] || return 1
  pid="$(<"$f")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$INFRA_DIR/" || return 1
  printf '%s\n' "$pid"
}

# spawn NAME LOGFILE CMD... : start CMD detached (own session, survives the
# caller's Ctrl-C), stdout+stderr to LOGFILE, pid recorded in the pid file.
spawn() {
  local name="$1" out="$2"; shift 2
  mkdir -p "$INFRA_DIR/run" "$(dirname "$out")"
  [[ -f "$out" ]] && mv -f "$out" "$out.prev"
  mkdir -p "$INFRA_DIR/$name"
  # The subshell execs setsid, which (not being a process-group leader) execs the
  # engine in place: $! is the engine's own pid. cwd = the engine's home, so JVM
  # crash files and heap dumps land there.
  # fds 8/9 (our locks) are closed so the engine does not hold them.
  (cd "$INFRA_DIR/$name" && exec setsid "$@" </dev/null >"$out" 2>&1 8>&- 9>&-) &
  printf '%s\n' "$!" >"$(pid_file "$name")"
}

# stop_pid NAME [GRACE_SECONDS]: TERM, wait, then KILL. Only touches our own pid.
stop_pid() {
  local name="$1" grace="${2:-15}" pid f i
  f="$(pid_file "$name")"
  if ! pid="$(pid_of "$name")"; then
    [[ -f "$f" ]] && rm -f "$f"
    log "$name: not running"
    return 0
  fi
  log "$name: stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 10; i++)); do
    alive "$pid" || break
    sleep 0.1
  done
  if alive "$pid"; then
    log "$name: still alive after ${grace}s, sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$f"
  log "$name: stopped"
}

# port_open PORT [HOST]: true if something accepts TCP connections there.
port_open() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "${2:-$INFRA_HOST}" "$1" 2>/dev/null
}

# lock FD FILE: take an exclusive lock (held until this script exits or the fd is
# closed) so concurrent callers (parallel test runners) do not race.
lock() {
  command -v flock >/dev/null 2>&1 || return 0
  mkdir -p "$(dirname "$2")"
  eval "exec $1>\"\$2\""
  flock "$1"
}

# Refuse to start when a port we need is held by a process that is not ours.
require_free_ports() {
  local name="$1" p; shift
  for p in "$@"; do
    port_open "$p" && die "$name: port $INFRA_HOST:$p is already in use by a process infra did not start (set the port env var or stop it)"
  done
  return 0
}

# http_get URL: body on stdout; curl if present, else bash /dev/tcp (plain http only).
http_get() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsS --max-time 2 "$1"
  else
    local rest="${1#http://}" hostport path host port
    hostport="${rest%%/*}"; path="/${rest#*/}"
    host="${hostport%:*}"; port="${hostport##*:}"
    # shellcheck disable=SC2016 # expanded by the inner bash
    timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1
      printf "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" "$3" "$1" >&3
      sed "1,/^\r$/d" <&3' _ "$host" "$port" "$path"
  fi
}

# wait_until NAME TIMEOUT_S LOGFILE CHECK_CMD...: poll CHECK_CMD until it succeeds;
# fail early if the engine's process dies, and point at the log on failure.
wait_until() {
  local name="$1" limit="$2" logfile="$3"; shift 3
  local start pid deadline
  start="$(now_ms)"; deadline=$(( start + limit * 1000 ))
  pid="$(cat "$(pid_file "$name")" 2>/dev/null || true)"
  [[ -n "$pid" ]] || die "$name: not started (no pid file in $INFRA_DIR/run); log: $logfile"
  while :; do
    if "$@" 2>/dev/null; then return 0; fi
    if ! alive "$pid"; then
      log "$name: process $pid exited during startup; last lines of $logfile:"
      tail -n 30 "$logfile" >&2 2>/dev/null || true
      die "$name: failed to start (full log: $logfile)"
    fi
    if (( $(now_ms) > deadline )); then
      log "$name: not ready after ${limit}s; last lines of $logfile:"
      tail -n 30 "$logfile" >&2 2>/dev/null || true
      die "$name: timed out waiting (pid $pid still running; full log: $logfile)"
    fi
    sleep 0.25
  done
}

# cache_lib NAME VERSION: the jar dir for infra/NAME/pom.xml at VERSION; keyed by a hash
# of the pom too, so editing the pom makes the next start fetch again.
cache_lib() {
  local sum
  sum="$(sha256sum "$INFRA_ROOT/$1/pom.xml" | cut -c1-8)"
  printf '%s/%s-%s-%s/lib\n' "$INFRA_CACHE" "$1" "$2" "$sum"
}

# maven_fetch NAME POM DEST_LIB [MVN ARGS...]: resolve POM's runtime dependencies
# into DEST_LIB once. A throwaway local repository keeps parallel fetches apart
# and keeps the cache to one copy of each jar; DEST_LIB appears atomically.
maven_fetch() {
  local name="$1" pom="$2" dest="$3"; shift 3
  [[ -f "$dest/.complete" ]] && return 0
  lock 8 "$INFRA_CACHE/.$name-fetch.lock"
  [[ -f "$dest/.complete" ]] && return 0  # another caller fetched it meanwhile
  command -v mvn >/dev/null 2>&1 || die "$name: mvn (Maven) is required to fetch jars"
  local work start
  mkdir -p "$INFRA_CACHE"
  work="$(mktemp -d "$INFRA_CACHE/.fetch-$name.XXXXXX")"
  start="$(now_ms)"
  log "$name: fetching jars from Maven Central into $dest (first run only)…"
  mvn -B -q -ntp -f "$pom" "-Dmaven.repo.local=$work/m2" \
    dependency:copy-dependencies -DincludeScope=runtime \
    "-DoutputDirectory=$work/lib" "$@" >"$work/mvn.log" 2>&1 &
  local mvn_pid=$! ticks=0
  while alive "$mvn_pid"; do
    sleep 1
    if (( ++ticks % 15 == 0 )); then
      log "$name: still fetching… $(du -sm "$work" 2>/dev/null | cut -f1) MB so far ($(elapsed "$start"))"
    fi
  done
  if ! wait "$mvn_pid"; then
    tail -n 40 "$work/mvn.log" >&2
    mv -f "$work/mvn.log" "$INFRA_CACHE/$name-fetch-failed.log"
    rm -rf "$work"
    die "$name: Maven fetch failed (log: $INFRA_CACHE/$name-fetch-failed.log)"
  fi
  touch "$work/lib/.complete"
  mkdir -p "$(dirname "$dest")"
  rm -rf "$dest"
  mv "$work/lib" "$dest"
  rm -rf "$work"
  log "$name: fetched $(find "$dest" -name '*.jar' | wc -l) jars in $(elapsed "$start")"
}

# main_dispatch NAME "$@": common subcommand handling for an engine script that
# defines do_fetch, do_start, do_wait, do_stop, is_ready and print_env.
main_dispatch() {
  local name="$1" cmd="${2:-}"
  case "$cmd" in
    fetch) do_fetch ;;
    start) do_fetch; lock 9 "$INFRA_DIR/run/$name.lock"; do_start ;;
    wait) do_wait ;;
    stop) lock 9 "$INFRA_DIR/run/$name.lock"; do_stop ;;
    restart) do_fetch; lock 9 "$INFRA_DIR/run/$name.lock"; do_stop; do_start; do_wait ;;
    status)
      local pid
      if pid="$(pid_of "$name")"; then
        if is_ready 2>/dev/null; then log "$name: running (pid $pid), ready"; else log "$name: running (pid $pid), not ready"; fi
        print_env
      else
        log "$name: stopped"; return 3
      fi ;;
    env) print_env ;;
    *) echo "usage: $0 fetch|start|wait|stop|restart|status|env" >&2; return 2 ;;
  esac
}
