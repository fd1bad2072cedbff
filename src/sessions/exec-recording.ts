// Commands run through the exec API become `command` events of the sandbox's session (masked output):
// the sessions feature listens to the sandbox lifecycle's exec events.
import type { LifecycleConsumer } from '../sandboxes/lifecycle/contract.js';
import type { SessionService } from './service.js';

export function execRecording(sessions: SessionService): LifecycleConsumer {
  return {
    name: 'session recording',
    onExec: (exec) =>
      sessions.recordCommand({
        accountId: exec.accountId,
        sandboxId: exec.sandboxId,
        command: exec.command,
        exitCode: exec.exitCode,
        output: exec.output,
        durationMs: exec.durationMs,
        timedOut: exec.timedOut,
        truncated: exec.truncated,
        error: exec.error,
      }),
  };
}
