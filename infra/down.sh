#!/usr/bin/env bash
# Stop the test engines started by infra/ (default: all), by pid: TERM, then KILL after a grace period.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"

engines=("$@")
[[ ${#engines[@]} -gt 0 ]] || engines=(nats kafka cassandra)
pids=()
for e in "${engines[@]}"; do
  [[ "$e" =~ ^(nats|kafka|cassandra)$ ]] || die "unknown engine '$e' (nats, kafka, cassandra)"
  "$here/$e.sh" stop & pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
rm -f "$INFRA_DIR/infra.env"
exit "$rc"
