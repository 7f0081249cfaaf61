#!/usr/bin/env bash
# The language server's editor test drives Debian's neovim, headless. Installs it when it is
# missing and we may (root, apt-get); otherwise says exactly what to run, and fails.
set -euo pipefail
if command -v nvim >/dev/null; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's neovim for the language server's editor test (apt-get)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends neovim >/dev/null
  exit 0
fi
echo "npm test: nvim is missing; the language server's editor test needs it" >&2
echo "  hint: sudo apt-get install -y --no-install-recommends neovim" >&2
exit 1
