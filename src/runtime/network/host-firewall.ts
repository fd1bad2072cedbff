// Coexistence with iptables rule sets (Docker's above all). A drop in any netfilter table is final, so a
// FORWARD policy of DROP would silently kill sandbox traffic our own table accepts. Paddock then inserts
// two ACCEPT rules for its bridge at the top (in DOCKER-USER when Docker owns FORWARD); its own nftables
// table still does all the filtering.
import { runCommand } from './command.js';

async function iptables(args: string[]): Promise<{ ok: boolean; stdout: string }> {
  try {
    const result = await runCommand('iptables', ['-w', '5', ...args]);
    return { ok: result.exitCode === 0, stdout: result.stdout };
  } catch {
    return { ok: false, stdout: '' };
  }
}

export function forwardAcceptRules(bridgeName: string): string[][] {
  return [
    ['-i', bridgeName, '-j', 'ACCEPT'],
    ['-o', bridgeName, '-j', 'ACCEPT'],
  ];
}

/** Returns the iptables chain that got the ACCEPT rules, or null when iptables needs nothing. */
export async function ensureIptablesForwarding(bridgeName: string): Promise<string | null> {
  const forward = await iptables(['-S', 'FORWARD']);
  if (!forward.ok) return null;
  const lines = forward.stdout.split('\n').filter((line) => line.trim() !== '');
  const policyAccepts = lines.includes('-P FORWARD ACCEPT');
  const hasRules = lines.some((line) => line.startsWith('-A FORWARD'));
  if (policyAccepts && !hasRules) return null;
  const chain = (await iptables(['-S', 'DOCKER-USER'])).ok ? 'DOCKER-USER' : 'FORWARD';
  for (const rule of forwardAcceptRules(bridgeName)) {
    if ((await iptables(['-C', chain, ...rule])).ok) continue;
    if (!(await iptables(['-I', chain, '1', ...rule])).ok) throw new Error(`iptables -I ${chain} ${rule.join(' ')} failed`);
  }
  return chain;
}
