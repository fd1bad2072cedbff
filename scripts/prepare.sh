#!/usr/bin/env bash
# Installs whatever is missing (Debian packages, npm packages) and builds dist/. Idempotent and quick
# when nothing changed. Used by both set-up commands (up.sh, test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-system.sh

# npm ci only when package-lock.json changed since the last install (native addons take a minute).
lock_digest=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.paddock-lock-digest
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_digest" ]; then
  echo "installing npm packages"
  npm ci --no-audit --no-fund
  echo "$lock_digest" >"$stamp"
fi

npm run --silent build
