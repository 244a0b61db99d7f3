#!/usr/bin/env bash
# The whole test suite, as `npm test` and CI run it:
#   1. build, and bring up NATS, Kafka and Cassandra from infra/ (fetched on the first run);
#   2. every test file against the embedded server, and the cluster adapters' own tests;
#   3. the conformance files again against a local cluster (3 actor hosts, 2 edges per file);
#   4. alone, the cluster's fault tests: hosts killed and paused, engines restarted.
# Engines this run started are stopped at the end; engines already running are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/bootstrap.sh

started=()
for engine in nats kafka cassandra; do
  bash "infra/$engine.sh" status >/dev/null 2>&1 || started+=("$engine")
done
stop_started() { if [ ${#started[@]} -gt 0 ]; then bash infra/down.sh "${started[@]}" || true; fi; }
trap stop_started EXIT
# An assignment, so that engines that did not come up stop the run here (an `eval "$(…)"` would
# go on with no addresses, and every engine-using test would fail for that instead).
engine_env="$(bash infra/up.sh)"
set -a
eval "$engine_env"
set +a
# Engines this run started are its own: drop the keyspaces earlier runs left behind (a killed run
# never drops its own; thousands of them made Cassandra's start take over three minutes).
if [[ " ${started[*]} " == *" cassandra "* ]]; then node scripts/prune-test-keyspaces.mjs; fi

# Servers the tests start as processes take their settings from here: the machine's load (these
# files in parallel) must not make them refuse work for lag or slowness, nor end a request after
# 10 s (at load 20 one request took longer). The rules are tested in
# packages/edge/test/admission.test.ts; packages/server/test/admission.test.ts sets its own.
export ADMISSION_MAX_LAG_MS="${ADMISSION_MAX_LAG_MS:-60000}" ADMISSION_TARGET_MS="${ADMISSION_TARGET_MS:-0}"
export ADMISSION_DEADLINE_MS="${ADMISSION_DEADLINE_MS:-30000}"
# Values handed over inside one process are frozen and checked to be plain JSON (`toWire` in
# packages/runtime/src/ports/transport.ts): a change after the send, or a value a cluster would
# see differently, throws. Production skips the check.
export CHAT_CHECK_VALUES=1

tests() { ls packages/*/dist/test/*.test.js actors/*/dist/test/*.test.js bench/dist/test/*.test.js 2>/dev/null; }
# Restarting engines or killing hosts must not hit other files' clusters, so these run last, alone.
faults='cluster-faults|cluster-engines'

echo "test: embedded server and adapters"
mapfile -t files < <(tests | grep -Ev "/($faults)\.test\.js$")
npx ava "${files[@]}"

# Files about the embedded deployment itself (its process, data folder and crashes) do not run
# against the cluster; nor does zulip-terminal's, which drives a server started the README's way
# (embedded): the operations it calls are checked on the cluster by their own conformance files.
embedded_only='admin|admission|can-create-users|compose|crash-loop|dev-realm|durability|edge-workers|production|secrets|startup|zulip-terminal'
mapfile -t conformance < <(ls packages/server/dist/test/*.test.js | grep -Ev "/($embedded_only|$faults)\.test\.js$")
echo "test: ${#conformance[@]} conformance files against a local cluster"
CHAT_TEST_TARGET=cluster npx ava "${conformance[@]}"

echo "test: cluster faults"
mapfile -t fault_files < <(tests | grep -E "/($faults)\.test\.js$")
npx ava --serial --concurrency 1 --timeout 5m "${fault_files[@]}"
