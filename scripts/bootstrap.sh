#!/usr/bin/env bash
# Makes a checkout runnable: installs dependencies when the lock file is newer
# than what is installed, then builds (tsc -b is incremental, so a warm run
# takes about a second). Used by `npm start` and `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "bootstrap: installing dependencies…"
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "bootstrap: building…"
npx tsc -b
