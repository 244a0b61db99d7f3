#!/usr/bin/env bash
# Makes the Python packages of requirements-test.txt (the official Zulip
# clients the tests drive) available, and prints the path of a Python
# interpreter that has them as the last line of stdout; everything else goes
# to stderr.
#
# The environment lives outside the repository, in
#   ${TEAM_CHAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/team-chat}/python/<hash of requirements-test.txt>
# so it is built once per version of the requirements (seconds, needs PyPI) and
# reused after that (a few milliseconds). PYTHON chooses the base interpreter
# (default python3).
#
# Usage: python-env.sh [requirements file, relative to the repository] [module]
# Another requirements file (requirements-schemathesis.txt) gets its own
# environment, keyed by its own hash; `module` is imported as the smoke test
# of the result (default zulip).
#
# A virtualenv when `python3 -m venv` works. Debian leaves ensurepip out of
# python3 unless python3-venv is installed; then the packages go to
# `pip install --target` and bin/python is a small wrapper that sets
# PYTHONPATH, so callers run `<printed path> script.py` either way.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
requirements="$root/${1:-requirements-test.txt}"
smoke_module="${2:-zulip}"
base="${PYTHON:-python3}"
base_path="$(command -v "$base")" || {
  echo "python-env: $base not found; install Python 3 (Debian: apt-get install python3 python3-pip)" >&2
  exit 1
}
cache="${TEAM_CHAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/team-chat}/python"
hash="$(sha256sum "$requirements" | cut -c1-16)"
env_dir="$cache/$hash"
python="$env_dir/bin/python"
stamp="$env_dir/.complete"
# The environment is bound to its base interpreter: another one (or a new minor
# version of it) means building again.
identity="$base_path $("$base_path" -c 'import sys; print(sys.version.split()[0])')"

ready() { [ -x "$python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$identity" ]; }

if ! ready; then
  mkdir -p "$cache"
  # Test files run in parallel and each asks for the environment: one builds it.
  if command -v flock >/dev/null; then
    exec 9>"$cache/.lock"
    flock 9
  fi
  if ! ready; then
    echo "python-env: installing $(basename "$requirements") into $env_dir (once)…" >&2
    rm -rf "$env_dir"
    export PIP_ROOT_USER_ACTION=ignore # as root in a container; pip versions without it ignore it
    pip_install=(-m pip install --disable-pip-version-check --no-input --quiet)
    if venv_output="$("$base_path" -m venv "$env_dir" 2>&1)"; then
      "$python" "${pip_install[@]}" --requirement "$requirements" >&2
    else
      echo "python-env: '$base -m venv' cannot make a virtualenv with pip (Debian: python3-venv);" \
        "using pip install --target. It said:" >&2
      sed 's/^/  | /' <<<"$venv_output" >&2
      rm -rf "$env_dir"
      if ! "$base_path" -m pip --version >/dev/null 2>&1; then
        echo "python-env: $base has no pip either; install one (Debian: apt-get install python3-pip or python3-venv)" >&2
        exit 1
      fi
      mkdir -p "$env_dir/bin"
      # --target installs everything into the folder, whatever the base has, and
      # is allowed by pip on an "externally managed" Python (PEP 668).
      "$base_path" "${pip_install[@]}" --target "$env_dir/site-packages" --requirement "$requirements" >&2
      quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
      cat >"$python" <<EOF
#!/bin/sh
# Written by scripts/python-env.sh: $base_path with the packages of $(basename "$requirements").
PYTHONPATH=$(quote "$env_dir/site-packages")\${PYTHONPATH:+:\$PYTHONPATH} exec $(quote "$base_path") "\$@"
EOF
      chmod +x "$python"
    fi
    # A smoke test of the result before it is marked complete.
    "$python" -c "import $smoke_module" >&2
    printf '%s\n' "$identity" >"$stamp"
  fi
fi

printf '%s\n' "$python"
