// Host process tree walking, to kill everything a timed-out exec started (runc exec processes are host processes).
import { readdir, readFile } from 'node:fs/promises';

async function parentPids(): Promise<Map<number, number>> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // The command name may contain spaces and parentheses; fields after the last ')' are fixed.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // the process exited while we looked
    }
  }
  return parents;
}

export async function descendantPids(rootPid: number): Promise<number[]> {
  const parents = await parentPids();
  const found: number[] = [];
  let frontier = [rootPid];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const [pid, parent] of parents) if (frontier.includes(parent)) next.push(pid);
    found.push(...next);
    frontier = next;
  }
  return found;
}

export function killPids(pids: number[], signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Whether `pid` is a live (not zombie) host process. */
export async function processAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
