#!/usr/bin/env bash
# Start the test engines (default: nats kafka cassandra) and print their addresses as
# env lines on stdout, e.g.  eval "$(infra/up.sh)"   or   infra/up.sh kafka
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"

engines=("$@")
[[ ${#engines[@]} -gt 0 ]] || engines=(cassandra kafka nats)  # slowest first
for e in "${engines[@]}"; do
  [[ -x "$here/$e.sh" && "$e" =~ ^(nats|kafka|cassandra)$ ]] || die "unknown engine '$e' (nats, kafka, cassandra)"
done

t0="$(now_ms)"
# 1. fetch everything in parallel (each fetch is a no-op once cached)
declare -A fetching=()
for e in "${engines[@]}"; do "$here/$e.sh" fetch & fetching[$e]=$!; done
failed=()
for e in "${engines[@]}"; do wait "${fetching[$e]}" || failed+=("$e"); done
[[ ${#failed[@]} -eq 0 ]] || die "fetch failed for: ${failed[*]}"

# 2. start all (no-op for engines already running), 3. then wait for each
for e in "${engines[@]}"; do "$here/$e.sh" start || die "$e did not start; the others are left running (stop all with infra/down.sh)"; done
for e in "${engines[@]}"; do
  "$here/$e.sh" wait || die "$e did not come up; the others are left running (stop all with infra/down.sh)"
done

mkdir -p "$INFRA_DIR"
for e in nats kafka cassandra; do
  if [[ " ${engines[*]} " == *" $e "* ]]; then "$here/$e.sh" env; fi
done | tee "$INFRA_DIR/infra.env"
log "ready in $(elapsed "$t0") (env also in $INFRA_DIR/infra.env; stop with infra/down.sh)"
