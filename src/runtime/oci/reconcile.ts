// At start: which of the sandboxes the database knows are still alive on this host, and the removal
// of everything else a previous process left behind (containers, sandbox dirs, mounts, cgroups, network).
import { access, readdir } from 'node:fs/promises';
import path from 'node:path';
import { AgentEndpoint } from '../agent/endpoint.js';
import { cgroupChildren } from '../host/cgroups.js';
import { mountPointsUnder } from '../host/mounts.js';
import { runtimePaths } from '../paths.js';
import type { ReconcileResult } from '../runtime.js';
import { removeCgroups, type LiveSandboxes } from './live-sandboxes.js';
import { removeContainer } from './pause-resume.js';
import { readSandboxRecord, sandboxCgroupParent, sandboxCgroupsPath } from './sandbox-record.js';

export async function reconcileSandboxes(live: LiveSandboxes, knownIds: string[], poolIds: string[], destroy: (id: string) => Promise<void>): Promise<ReconcileResult> {
  const { driver, options } = live;
  // This process's own pool sandboxes are in no database, but they are not leftovers.
  const known = new Set([...knownIds, ...poolIds]);
  const result: ReconcileResult = { alive: [], dead: [], cleaned: [] };
  for (const id of knownIds) {
    const status = await driver.status(id);
    const record = await readSandboxRecord(live.paths(id).stateFile);
    if (record?.checkpointed && (await exists(live.paths(id).checkpointDir))) {
      // Checkpointed to disk: no process to find, and none needed until it is resumed. The previous
      // server may have stopped before it removed the stopped container.
      if (status !== null) await removeContainer(live, record);
      live.records.set(id, record);
      result.alive.push(id);
    } else if (record && (status === 'running' || status === 'paused')) {
      live.records.set(id, { ...record, paused: status === 'paused' });
      if (record.agent && !live.agents.has(id)) live.agents.set(id, await AgentEndpoint.listen(live.paths(id).agentDir));
      result.alive.push(id);
    } else {
      result.dead.push(id);
    }
  }
  const leftovers = new Set<string>();
  for (const id of await driver.cli.list()) if (!known.has(id)) leftovers.add(id);
  const sandboxesDir = runtimePaths(options.dataDir).sandboxesDir;
  for (const id of await readdir(sandboxesDir).catch(() => [] as string[])) if (!known.has(id)) leftovers.add(id);
  for (const point of await mountPointsUnder(sandboxesDir)) {
    const id = path.relative(sandboxesDir, point).split(path.sep)[0];
    if (id && !known.has(id)) leftovers.add(id);
  }
  for (const id of leftovers) {
    await destroy(id);
    result.cleaned.push(id);
  }
  // Cgroups are host-wide (shared by every data dir): only empty ones are removed, a live one refuses rmdir.
  for (const id of await cgroupChildren(sandboxCgroupParent)) {
    if (!known.has(id) && (await removeCgroups(sandboxCgroupsPath(id))) && !result.cleaned.includes(id)) {
      result.cleaned.push(id);
    }
  }
  for (const id of await options.network.reconcile([...known])) {
    if (!result.cleaned.includes(id)) result.cleaned.push(id);
  }
  return result;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
