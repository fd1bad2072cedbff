// Waiting on a sandbox through the API, as a client would: its status after set-up, a crash or a
// timeout.
import type { TestApp } from './app.js';
import { waitFor } from './wait-for.js';

/** Polls GET /v1/sandboxes/{id} until its status is one of `statuses`; returns the sandbox. */
export function waitForSandboxStatus(t: TestApp, token: string, id: string, statuses: string[], timeoutMs = 60_000): Promise<any> {
  return waitFor(
    `sandbox ${id} to be ${statuses.join(' or ')}`,
    async () => {
      const { body } = await t.request('GET', `/v1/sandboxes/${id}`, { token });
      if (!statuses.includes(body.status)) throw new Error(`it is ${body.status}${body.error ? ` (${body.error})` : ''}`);
      return body;
    },
    timeoutMs,
    200,
  );
}
