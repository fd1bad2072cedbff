#!/usr/bin/env bash
# Builds the in-sandbox exec agent as one static binary (it runs in every template, whatever its libc):
# static-pie, so it keeps address randomisation, with the relay's hardening (stack protector, fortified
# libc calls, full RELRO; test/native/hardening.test.ts checks the binary).
# Skipped when the binary is newer than every source file and this script.
set -euo pipefail
cd "$(dirname "$0")/.."
target=build/paddock-agent
if [ -x "$target" ] && [ -z "$(find agent scripts/build-agent.sh -newer "$target" \( -name '*.[ch]' -o -name '*.sh' \) -not -path 'agent/fuzz/*')" ]; then
  exit 0
fi
mkdir -p build
gcc -static-pie -O2 -Wall -Wextra -Werror -fstack-protector-strong -fstack-clash-protection -D_FORTIFY_SOURCE=2 -fPIE -Wl,-z,relro,-z,now \
  -o "$target.tmp" $(find agent -maxdepth 1 -name '*.c')
mv "$target.tmp" "$target"
