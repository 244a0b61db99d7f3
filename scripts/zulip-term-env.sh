#!/usr/bin/env bash
# Makes what zulip-terminal.test.ts drives available, and prints two lines on
# stdout: the path of tmux, then the path of the zulip-term command; everything
# else goes to stderr.
#
# - tmux from Debian (apt-get update first) when the machine has none;
# - zulip-term (requirements-zulip-term.txt) by scripts/python-env.sh into its
#   own cached virtualenv, on Python 3.10 (zulip-term 0.7.0 needs it): PYTHON,
#   else the pyenv 3.10 at ~/.pyenv/versions/3.10.13, else python3.10.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"

if ! command -v tmux >/dev/null; then
  echo "zulip-term-env: installing tmux (apt-get)…" >&2
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq tmux >&2
fi

if [ -z "${PYTHON:-}" ]; then
  for candidate in "$HOME/.pyenv/versions/3.10.13/bin/python3" python3.10; do
    if command -v "$candidate" >/dev/null; then
      PYTHON="$candidate"
      break
    fi
  done
fi
if [ -z "${PYTHON:-}" ]; then
  echo "zulip-term-env: zulip-term 0.7.0 needs Python 3.10; set PYTHON to one (pyenv install 3.10.13)" >&2
  exit 1
fi

python="$(PYTHON="$PYTHON" bash "$root/scripts/python-env.sh" requirements-zulip-term.txt zulipterminal | tail -n 1)"
zulip_term="$(dirname "$python")/zulip-term"
if [ ! -x "$zulip_term" ]; then
  # pip install --target leaves no console script: run the module with the wrapper interpreter.
  zulip_term="$(dirname "$python")/zulip-term-wrapper"
  printf '#!/bin/sh\nexec %q -m zulipterminal.cli.run "$@"\n' "$python" >"$zulip_term"
  chmod +x "$zulip_term"
fi

command -v tmux
printf '%s\n' "$zulip_term"
