// Turns sandbox rows into the shapes the API returns.
import type { SandboxSpend } from '../billing/metering/spend.js';
import { usd } from './callbacks/events.js';
import type { SandboxRow } from './store.js';

export function sandboxView(row: SandboxRow, spend: SandboxSpend) {
  return {
    id: row.id,
    status: row.status,
    error: row.error,
    runtime: row.runtime,
    template: row.template,
    ip: row.ip,
    cpus: row.cpus,
    memory_mb: row.memory_mb,
    disk_gb: row.disk_gb,
    network_mode: row.network_mode,
    allowlist: JSON.parse(row.allowlist) as string[],
    env: JSON.parse(row.env) as Record<string, string>,
    repo: row.repo,
    repo_branch: row.repo_branch,
    repo_commit: row.repo_commit,
    repo_subdir: row.repo_subdir,
    budget: row.budget === null ? null : Number(row.budget),
    spend_usd: usd(spend.totalUsd),
    compute_cost_usd: usd(spend.computeUsd),
    llm_cost_usd: usd(spend.llmUsd),
    on_complete: row.on_complete,
    on_budget_exceeded: row.on_budget_exceeded,
    init_script: row.init_script,
    timeout: row.timeout,
    packages: JSON.parse(row.packages) as string[],
    agents: JSON.parse(row.agents) as string[],
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_activity_at: row.last_activity_at,
    destroyed_at: row.destroyed_at,
    destroyed_reason: row.destroyed_reason,
    secrets: JSON.parse(row.secrets) as string[],
    paused_at: row.paused_at,
  };
}

export function sandboxCreatedView(row: SandboxRow) {
  const { id, status, template, ip, cpus, memory_mb, disk_gb, network_mode, created_at } = row;
  return { id, status, template, ip, cpus, memory_mb, disk_gb, network_mode, created_at };
}

export function sandboxListItem(row: SandboxRow, spend: SandboxSpend) {
  const { id, status, template, cpus, memory_mb, disk_gb, created_at } = row;
  return { id, status, template, cpus, memory_mb, disk_gb, budget: row.budget === null ? null : Number(row.budget), spend_usd: usd(spend.totalUsd), created_at };
}
