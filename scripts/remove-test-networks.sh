#!/usr/bin/env bash
# Removes the host networks (nftables tables, bridges) of the test network profiles a run may have used:
# those of test/helpers/app.ts, PADDOCK_TEST_NETWORK_BASE + 1-9 for the `runtime` project and + 10-19 for
# `runtime-apart` (vitest.config.ts), and a non-zero base itself (apps that asked for no profile). The
# other projects' profiles sit further up: call it again with their base (+ 20, + 40).
# Every `nft` call reads the whole ruleset, so tables left behind slow each sandbox create and destroy.
set -u
base="${PADDOCK_TEST_NETWORK_BASE:-0}"
profiles=$(seq "$((base + 1))" "$((base + 19))")
if [ "$base" -gt 0 ]; then profiles="$base $profiles"; fi
for profile in $profiles; do
  for family in inet bridge; do nft delete table "$family" "paddock_p$profile" 2>/dev/null; done
  ip link del "pdkp${profile}br" 2>/dev/null
done
exit 0
