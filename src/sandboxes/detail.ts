// The sandbox as GET answers it, by the caller's scope: a confidential sandbox's env (a pipeline's env
// and run token, for stage sandboxes), init_script and failure output are shown to narrower scopes withheld.
import type { SandboxSpend } from '../billing/metering/spend.js';
import { scopeReadsSecrets, type Scope } from '../core/access.js';
import type { SandboxEvent } from './lifecycle/contract.js';
import type { SandboxRow } from './store.js';
import { sandboxView } from './views.js';

/** What narrower scopes see in place of a confidential sandbox's env values. */
export const HIDDEN_VALUE = '***';

export function sandboxDetail(row: SandboxRow, spend: SandboxSpend, scope: Scope) {
  const full = sandboxView(row, spend);
  if (scopeReadsSecrets(scope)) return full;
  // A callback URL often is a credential (a chat webhook's path, a token in the query): narrower keys see where it goes.
  const view = { ...full, on_complete: callbackOrigin(full.on_complete), on_budget_exceeded: callbackOrigin(full.on_budget_exceeded) };
  if (row.confidential !== 1) return view;
  return {
    ...view,
    env: Object.fromEntries(Object.keys(view.env).map((name) => [name, HIDDEN_VALUE])),
    init_script: view.init_script === null ? null : HIDDEN_VALUE,
    error: view.error === null ? null : withheld(view.error, scope),
  };
}

/** A confidential sandbox's error reasons (set-up output) are withheld from narrower scopes on its timeline too. */
export function eventsForScope(row: SandboxRow, events: SandboxEvent[], scope: Scope): SandboxEvent[] {
  if (scopeReadsSecrets(scope) || row.confidential !== 1) return events;
  return events.map((event) => (event.type === 'sandbox.error' && typeof event.data.reason === 'string' ? { ...event, data: { ...event.data, reason: withheld(event.data.reason, scope) } } : event));
}

/** A failed set-up step's message ends with its output; narrower keys get the step and outcome only. */
function withheld(error: string, scope: Scope): string {
  return `${error.split(': ')[0]} (details withheld from a ${scope}-scope key: the sandbox is confidential)`;
}

/** `https://hooks.example.com/***` for a callback URL, shown to keys that may not read secrets. */
function callbackOrigin(url: string | null): string | null {
  if (url === null) return null;
  try {
    return `${new URL(url).origin}/${HIDDEN_VALUE}`;
  } catch {
    return HIDDEN_VALUE;
  }
}
