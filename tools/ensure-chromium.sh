#!/usr/bin/env bash
# The docs' browser tests drive Debian's chromium, never a downloaded browser. Installs it when
# it is missing and we may (root, apt-get); otherwise says exactly what to run, and fails.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium for the docs' browser tests (apt-get)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  exit 0
fi
echo "npm test: /usr/bin/chromium is missing; the docs' browser tests need it" >&2
echo "  hint: sudo apt-get install -y --no-install-recommends chromium" >&2
exit 1
