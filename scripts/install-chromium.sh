#!/usr/bin/env bash
# Debian's Chromium for the dashboard's browser tests and benchmark (driven by playwright-core; no
# browser is ever downloaded). Only the test and bench commands need it, so `npm run up` does not.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-chromium.sh must run as root (apt-get install chromium)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
/usr/bin/chromium --version
