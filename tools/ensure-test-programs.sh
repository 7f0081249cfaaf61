#!/usr/bin/env bash
# The programs `npm test` drives besides Node, Debian's own, never downloaded builds: chromium
# for the docs' browser tests, neovim (headless) for the language server's editor test. Installs
# the missing ones when we may (root, apt-get); otherwise says exactly what to run, and fails.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v nvim >/dev/null || missing+=(neovim)
if [ "${#missing[@]}" = 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's ${missing[*]} for npm test's browser and editor tests (apt-get)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "npm test: ${missing[*]} missing (chromium at /usr/bin/chromium for the docs' browser tests, nvim for the language server's editor test)" >&2
echo "  hint: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
exit 1
