// What exec, files, git and stages answer for a sandbox that is not running.
import type { SandboxRow } from './store.js';

export function notRunningMessage(row: Pick<SandboxRow, 'id' | 'status'>): string {
  switch (row.status) {
    case 'creating':
      return 'sandbox is creating (set-up is still running)';
    case 'paused':
      return `sandbox is paused; resume it with POST /v1/sandboxes/${row.id}/resume`;
    case 'restoring':
      return 'sandbox is restoring a snapshot; try again in a moment';
    default:
      return `sandbox is ${row.status}`;
  }
}

export class SandboxUnavailable extends Error {
  constructor(readonly why: string) {
    super(why.startsWith('sandbox') ? why : `sandbox is ${why}`);
  }
}
