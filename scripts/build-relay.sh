#!/usr/bin/env bash
# Builds the preview relay (relay/*.c), the process that carries admitted preview connections. It parses
# what anyone who reaches a preview URL sends, so it is built hardened: stack protector, fortified libc
# calls, position-independent, full RELRO (test/native/hardening.test.ts checks the binary).
# Skipped when the binary is newer than every source file and this script.
set -euo pipefail
cd "$(dirname "$0")/.."
target=build/paddock-relay
if [ -x "$target" ] && [ -z "$(find relay scripts/build-relay.sh -newer "$target" \( -name '*.[ch]' -o -name '*.sh' \) -not -path 'relay/fuzz/*')" ]; then
  exit 0
fi
mkdir -p build
gcc -O2 -Wall -Wextra -Werror -fstack-protector-strong -fstack-clash-protection -D_FORTIFY_SOURCE=2 -fPIE -pie -Wl,-z,relro,-z,now \
  -o "$target.tmp" relay/*.c
mv "$target.tmp" "$target"
