// Row types of every table, as Kysely sees them. Timestamps are ISO strings, booleans 0/1 integers,
// JSON documents text: the one representation both SQLite and PostgreSQL store the same way.

export interface AccountsTable {
  id: string;
  email: string;
  email_normalized: string;
  name: string | null;
  password_hash: string;
  plan: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  scope: string;
  display_prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface DashboardSessionsTable {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
}

export interface SandboxesTable {
  id: string;
  account_id: string;
  status: string;
  error: string | null;
  runtime: string;
  template: string;
  cpus: number;
  memory_mb: number;
  disk_gb: number;
  network_mode: string;
  /** JSON array of strings. */
  allowlist: string;
  /** JSON object of strings. */
  env: string;
  ip: string | null;
  repo: string | null;
  repo_branch: string | null;
  repo_commit: string | null;
  repo_subdir: string | null;
  budget: number | null;
  init_script: string | null;
  timeout: number | null;
  /** JSON arrays of strings. */
  packages: string;
  agents: string;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
  destroyed_at: string | null;
}

/** A TCP port inside a sandbox: listening now, or protected ahead of (or between) listening. */
export interface SandboxPortsTable {
  sandbox_id: string;
  port: number;
  /** `http` when the port answered an HTTP request when it was detected, else `tcp`. */
  protocol: string;
  listening: number;
  detected_at: string | null;
  password_hash: string | null;
  protected: number;
  updated_at: string;
}

export interface ServerSettingsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  dashboard_sessions: DashboardSessionsTable;
  sandboxes: SandboxesTable;
  sandbox_ports: SandboxPortsTable;
  server_settings: ServerSettingsTable;
}
