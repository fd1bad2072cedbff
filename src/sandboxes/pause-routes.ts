// HTTP surface of pause and resume.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PauseResult, SandboxParams } from './schemas.js';
import type { PauseSnapshots, SandboxService } from './service.js';
import { ErrorResponse } from '../core/error-body.js';

const access = { access: { kind: 'key', area: 'sandboxes' } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 409: Err, 429: Err };

export function pauseRoutes(service: SandboxService, pauseSnapshots: PauseSnapshots | null, runtimeName: string): FastifyPluginAsyncTypebox {
  const how =
    runtimeName === 'gvisor'
      ? 'On this server (gVisor): a sandbox with `network_mode: none` and no command running is checkpointed (`runsc checkpoint`): its memory is written to disk and freed, and resume restores it (`runsc restore`). Sandboxes with a network (runsc cannot checkpoint host networking here), or with an exec still running, are frozen instead (`runsc pause` plus the cgroup freezer; memory stays resident). See docs/runtime.md.'
      : "On this server (runc) the sandbox is frozen with the cgroup freezer: memory stays resident on the host (runc's checkpoint needs CRIU, which does not work here).";

  return async function register(app) {
    app.post('/v1/sandboxes/:id/pause', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['sandboxes'],
        summary: 'Pause a sandbox',
        description: `running → paused. Every process stops where it is and uses no CPU (no compute charge); on resume it continues from the same point (a counting loop keeps counting from where it stopped). ${how} An automatic snapshot of the filesystem is taken (\`snapshot_id\`, kind \`pause\`; it replaces the previous automatic one). While paused, exec answers exit_code 1 with \`error\`, files and git answer 409, a terminal cannot be opened (open ones stall), previews answer 502. Paused sandboxes stay paused across a server restart. Pausing a paused sandbox answers 200 and changes nothing; other states answer 409.`,
        params: SandboxParams,
        response: { 200: PauseResult, ...errors },
      },
      handler: async (request) => {
        const { row, snapshot } = await service.pause(request.principal!.accountId, request.params.id, 'request', pauseSnapshots);
        return {
          id: row.id,
          status: row.status,
          paused_at: row.paused_at,
          last_activity_at: row.last_activity_at,
          snapshot_id: snapshot?.snapshot_id ?? null,
          ...(snapshot?.snapshot_error ? { snapshot_error: snapshot.snapshot_error } : {}),
        };
      },
    });

    app.post('/v1/sandboxes/:id/resume', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['sandboxes'],
        summary: 'Resume a paused sandbox',
        description:
          "paused → running: processes continue where they stopped, and `last_activity_at` is now (the idle timeout counts again from here). Waits for the automatic pause snapshot's copy if it is still running. Resuming a running sandbox answers 200 and changes nothing; other states answer 409. While the plan's compute hours for the period are used up, resuming a paused sandbox answers 403 `plan_limit` (the quota paused it; it resumes after an upgrade or in the next period).",
        params: SandboxParams,
        response: { 200: PauseResult, ...errors },
      },
      handler: async (request) => {
        const row = await service.resume(request.principal!.accountId, request.params.id, request.principal!.plan);
        return { id: row.id, status: row.status, paused_at: row.paused_at, last_activity_at: row.last_activity_at };
      },
    });
  };
}
