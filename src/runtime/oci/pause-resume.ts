// Pausing an OCI sandbox (a memory checkpoint where the driver can take one, else a cgroup freeze)
// and resuming it.
import { AgentEndpoint } from '../agent/endpoint.js';
import { backgroundNiceness } from '../rootfs/upper-archive.js';
import { removeCgroups, type LiveSandboxes } from './live-sandboxes.js';
import type { SandboxRecord } from './sandbox-record.js';

/**
 * No `sync` inside first: gVisor writes file data straight through to the host files (and a checkpoint
 * writes back anything cached), so the automatic snapshot already sees every write (docs/runtime.md).
 */
export async function pauseSandbox(live: LiveSandboxes, id: string): Promise<void> {
  const record = await live.record(id);
  if (await checkpoint(live, record)) return;
  await live.driver.freeze(id, record.cgroupsPath);
  await live.saveRecord({ ...record, paused: true });
}

/**
 * A memory checkpoint where the driver can take one (gVisor, `none` network): the agent's host
 * connections must all be closed first (runsc cannot save an open host socket), so a sandbox with a
 * command still running over one is frozen instead. False when no checkpoint was taken.
 */
async function checkpoint(live: LiveSandboxes, record: SandboxRecord): Promise<boolean> {
  const { driver } = live;
  if (!driver.checkpoint || !driver.canCheckpoint(record.networkMode)) return false;
  const agent = live.agents.get(record.id);
  if (agent && agent.busyConnections > 0) return false;
  live.agents.delete(record.id);
  await agent?.close();
  try {
    await driver.checkpoint(record.id, live.paths(record.id).checkpointDir);
  } catch (error) {
    // runsc leaves the sandbox running when it refuses: keep serving it and freeze instead.
    if ((await driver.status(record.id)) === 'running') {
      if (record.agent) live.agents.set(record.id, await AgentEndpoint.listen(live.paths(record.id).agentDir));
      return false;
    }
    throw error;
  }
  live.forgetProcesses(record.id);
  await live.saveRecord({ ...record, paused: true, checkpointed: true });
  // The image is complete and the sandbox has stopped using CPU and memory; removing the stopped
  // container waits until the host reaps its process (over a second here), so that happens afterwards,
  // and only from the next turn of the event loop: its first spawn would otherwise delay the pause's answer.
  const removal = new Promise((resolve) => setImmediate(resolve)).then(() => removeContainer(live, record, { background: true }));
  live.checkpointRemovals.set(
    record.id,
    removal.then(
      () => true,
      () => false,
    ),
  );
  return true;
}

export async function resumeSandbox(live: LiveSandboxes, id: string): Promise<void> {
  const record = await live.record(id);
  if (record.checkpointed && live.driver.restore) {
    const paths = live.paths(id);
    await checkpointedContainerRemoved(live, record);
    if (record.agent && !live.agents.has(id)) live.agents.set(id, await AgentEndpoint.listen(paths.agentDir));
    await live.driver.restore(id, paths.bundleDir, record.netnsPath, record.networkMode, paths.checkpointDir);
    await live.saveRecord({ ...record, paused: false, checkpointed: false });
    return;
  }
  await live.driver.thaw(id, record.cgroupsPath);
  await live.saveRecord({ ...record, paused: false });
}

/** Waits for a checkpointed sandbox's container to be gone; removes it now if the removal after the pause failed. */
async function checkpointedContainerRemoved(live: LiveSandboxes, record: SandboxRecord): Promise<void> {
  const removal = live.checkpointRemovals.get(record.id);
  if (removal && !(await removal)) await removeContainer(live, record);
  live.checkpointRemovals.delete(record.id);
}

export async function removeContainer(live: LiveSandboxes, record: SandboxRecord, options: { background?: boolean } = {}): Promise<void> {
  await live.driver.cli.remove(record.id, options.background ? backgroundNiceness : undefined);
  await removeCgroups(record.cgroupsPath);
}
