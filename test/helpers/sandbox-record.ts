// A sandbox record as the database holds it, for tests that write sandboxes straight into the real
// database (sessions, the lifecycle's edge table) instead of starting containers.
import { newId } from '../../src/core/ids.js';
import type { SandboxRow } from '../../src/sandboxes/store.js';

export function sandboxRecord(accountId: string, fields: Partial<SandboxRow> = {}): SandboxRow {
  const now = new Date().toISOString();
  return {
    id: newId('sbx'),
    account_id: accountId,
    status: 'running',
    error: null,
    runtime: 'runc',
    template: 'python-311',
    cpus: 1,
    memory_mb: 256,
    disk_gb: 1,
    network_mode: 'none',
    allowlist: '[]',
    env: '{}',
    ip: null,
    repo: null,
    repo_branch: null,
    repo_commit: null,
    repo_subdir: null,
    budget: null,
    init_script: null,
    timeout: null,
    packages: '[]',
    agents: '[]',
    created_at: now,
    updated_at: now,
    last_activity_at: now,
    destroyed_at: null,
    on_complete: null,
    on_budget_exceeded: null,
    destroyed_reason: null,
    budget_alerts_raised: 0,
    completed_at: null,
    host_id: null,
    secrets: '[]',
    paused_at: null,
    confidential: 0,
    ...fields,
  };
}
