// Builds dist/ and the sandbox agent once so CLI tests run the real `paddock` binary; afterwards removes
// the host networks (nftables tables, bridges) of the test network profiles this run may have used.
import { execFileSync, spawnSync } from 'node:child_process';

// scripts/test.sh runs the api and runtime projects as two Vitest processes at once: it builds before
// both (PADDOCK_TEST_BUILT=1), and only the runtime one, which owns the host networks, removes them.
export default function setup(): () => void {
  if (process.env.PADDOCK_TEST_BUILT !== '1') build();
  return process.env.PADDOCK_TEST_KEEP_NETWORKS === '1' ? () => {} : removeProfileNetworks;
}

function build(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
  execFileSync('bash', ['scripts/build-agent.sh'], { stdio: 'inherit' });
  execFileSync('bash', ['scripts/build-relay.sh'], { stdio: 'inherit' });
}

/**
 * Every `nft` call reads the whole ruleset, so tables left behind by earlier runs slow each sandbox create
 * and destroy on the host. Profiles are those of test/helpers/app.ts: 1-9, shifted by PADDOCK_TEST_NETWORK_BASE.
 */
function removeProfileNetworks(): void {
  const base = Number(process.env.PADDOCK_TEST_NETWORK_BASE ?? 0);
  const profiles = [...(base ? [base] : []), ...Array.from({ length: 9 }, (_, i) => base + i + 1)];
  for (const profile of profiles) {
    for (const family of ['inet', 'bridge']) spawnSync('nft', ['delete', 'table', family, `paddock_p${profile}`], { stdio: 'ignore' });
    spawnSync('ip', ['link', 'del', `pdkp${profile}br`], { stdio: 'ignore' });
  }
}
