// Builds dist/ and the sandbox agent once so CLI tests run the real `paddock` binary; afterwards removes
// the host networks (nftables tables, bridges) of the test network profiles this run may have used
// (scripts/remove-test-networks.sh).
import { execFileSync, spawnSync } from 'node:child_process';

// scripts/test.sh runs the projects as Vitest processes at once: it builds before them all
// (PADDOCK_TEST_BUILT=1), and removes the host networks itself once they have all finished.
export default function setup(): () => void {
  if (process.env.PADDOCK_TEST_BUILT !== '1') build();
  return process.env.PADDOCK_TEST_KEEP_NETWORKS === '1' ? () => {} : removeProfileNetworks;
}

function build(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
  execFileSync('bash', ['scripts/build-agent.sh'], { stdio: 'inherit' });
  execFileSync('bash', ['scripts/build-relay.sh'], { stdio: 'inherit' });
}

/** Those of `runtime` and `runtime-apart` (the base to + 19) and of `runtime-beside` (+ 40 on). */
function removeProfileNetworks(): void {
  const base = Number(process.env.PADDOCK_TEST_NETWORK_BASE ?? 0);
  for (const shift of [0, 40]) spawnSync('bash', ['scripts/remove-test-networks.sh'], { stdio: 'inherit', env: { ...process.env, PADDOCK_TEST_NETWORK_BASE: String(base + shift) } });
}
