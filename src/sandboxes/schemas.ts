// Request and response shapes of the sandbox endpoints: they validate input and document the API.
import { Type, type Static } from '@sinclair/typebox';
import { TEMPLATE_NAMES } from '../runtime/templates/catalog.js';
import { Nullable, LiteralUnion } from '../core/schemas.js';

export const AGENT_NAMES = ['agent_a', 'agent_b', 'agent_c'] as const;

const EnvName = { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' };
const Env = (maxProperties: number, description?: string) =>
  Type.Record(Type.String(), Type.String({ maxLength: 32_768 }), { maxProperties, propertyNames: EnvName, ...(description ? { description } : {}) });

const Strings = (options: { maxItems: number; maxLength: number; pattern?: string }) =>
  Type.Array(Type.String({ minLength: 1, maxLength: options.maxLength, ...(options.pattern ? { pattern: options.pattern } : {}) }), { maxItems: options.maxItems });

export const CreateSandboxBody = Type.Object(
  {
    template: LiteralUnion(TEMPLATE_NAMES, { description: 'See GET /v1/templates for which are ready on this server.' }),
    cpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, default: 2, description: 'CPU quota in cores.' })),
    memory_mb: Type.Optional(Type.Integer({ minimum: 128, maximum: 8192, default: 512, description: 'Hard memory limit; no swap. Past it the kernel kills a process inside the sandbox.' })),
    disk_gb: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5, description: 'Space for everything the sandbox writes; past it writes fail with ENOSPC inside.' })),
    network_mode: Type.Optional(
      Type.Union([Type.Literal('full'), Type.Literal('none'), Type.Literal('allowlist')], {
        default: 'full',
        description:
          '`full`: egress to the Internet through NAT. `none`: loopback only. `allowlist`: egress only to `allowlist`. In every mode the host, other sandboxes, private ranges and link-local metadata addresses are unreachable.',
      }),
    ),
    allowlist: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
        maxItems: 100,
        description:
          'Required with `network_mode: allowlist`. Hostnames (resolved by the host and re-resolved every 30 s), IPv4 addresses or IPv4 CIDRs. Wildcards are rejected. The `repo` host is added automatically.',
      }),
    ),
    env: Type.Optional(Env(200, 'Applied to every process in the sandbox (exec, terminal, set-up steps). Names match [A-Za-z_][A-Za-z0-9_]*.')),
    repo: Type.Optional(Type.String({ pattern: '^https://[^\\s]+$', maxLength: 2048, description: 'HTTPS git URL cloned into /workspace (inside the sandbox, so the network mode applies).' })),
    repo_token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, writeOnly: true, description: 'Used for the clone only; never stored, logged, returned or written to .git/config.' })),
    repo_branch: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._/-]+$', maxLength: 255 })),
    repo_commit: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{7,64}$', description: 'Overrides repo_branch.' })),
    repo_subdir: Type.Optional(
      Type.String({
        pattern: '^(?!(.*/)?\\.\\.?(/|$))[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$',
        maxLength: 1024,
        description: 'Only this directory of the repository becomes /workspace, as a fresh git repository with one commit.',
      }),
    ),
    budget: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1_000_000,
        description:
          "Maximum spend in USD: compute (vCPU-hours and GiB-hours while running, at the server's rates) plus the LLM cost of the sandbox's sessions. Alerts `budget_warning` / `budget_critical` are raised at the account's rule thresholds (80 % / 95 % by default); at the `budget_exceeded` threshold (100 %) the sandbox is destroyed (`destroyed_reason: budget_exceeded`) and `on_budget_exceeded` is called.",
      }),
    ),
    on_complete: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'URL POSTed once when the sandbox ends — destroyed by DELETE, by its budget, or entering the error state — with a Standard Webhooks event `{type: "sandbox.completed", timestamp, data: {id, status, reason, error, budget, spend_usd, compute_cost_usd, llm_cost_usd, created_at, ended_at}}`, signed with the account\'s webhook secret (GET /v1/notifications/config) in `webhook-id`, `webhook-timestamp`, `webhook-signature`. Retried with backoff until a 2xx. https only (http when the server sets PADDOCK_ALLOW_HTTP_WEBHOOKS); private, loopback and link-local targets are refused, also after DNS resolution at each attempt.',
      }),
    ),
    on_budget_exceeded: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'Needs `budget`. URL POSTed when the budget is exceeded and the sandbox has been destroyed for it (queued in the same transaction as the destroy), with `{type: "sandbox.budget_exceeded", timestamp, data: {id, budget, spend_usd, compute_cost_usd, llm_cost_usd, action, exceeded_at}}`; signed, retried and guarded like `on_complete`.',
      }),
    ),
    init_script: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'Run with /bin/sh -c in /workspace after clone, packages and agents; up to 10 minutes.' })),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_592_000,
        description:
          'Idle seconds before the sandbox is paused automatically (with an automatic snapshot and an `idle_timeout` alert, severity info). Activity is exec, files, git, terminal input/output and preview traffic; checked every second.',
      }),
    ),
    packages: Type.Optional(Strings({ maxItems: 100, maxLength: 214, pattern: '^[A-Za-z0-9@][A-Za-z0-9@._/:=<>!~^+-]*$' })),
    agents: Type.Optional(Type.Array(Type.Union(AGENT_NAMES.map((name) => Type.Literal(name))), { maxItems: 3, uniqueItems: true })),
    resources: Type.Optional(
      Type.Object(
        {
          cpu: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8, description: 'CPU cores; a fraction is rounded up to whole cores (`cpus`).' })),
          memory: Type.Optional(Type.Number({ minimum: 0.125, maximum: 8, description: "Memory in GiB (as Daytona's `resources.memory`); becomes `memory_mb` = memory × 1024, rounded." })),
        },
        {
          additionalProperties: false,
          description:
            'Batch-style sizing, another way to say `cpus` and `memory_mb`. When both are sent, `cpus` and `memory_mb` win; the sandbox record shows only the resulting `cpus` and `memory_mb`.',
        },
      ),
    ),
    secrets: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }), {
        maxItems: 50,
        uniqueItems: true,
        description:
          'Names of account secrets (PUT /v1/secrets/{name}) injected as environment variables of the same name into every process (over `env`). Needs a `full`-scope key: any program in the sandbox can print the values, so a `sandbox`- or `read`-scope key naming secrets gets 403 (code `scope_denied`, naming `body.secrets`). An unknown name is a 400. The sandbox becomes confidential: narrower keys can still get, list, pause, resume, snapshot and destroy it, but not reach inside (exec, files, git, terminal, preview protection, snapshot download and restore, session replay), see the API description. The sandbox record lists the names, never the values. Values are masked as `***` in recorded command output (sessions) — only their exact text, not an encoding of them (hex, base64): the scope rule is the boundary, masking a second line.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateSandboxInput = Static<typeof CreateSandboxBody>;

export const Status = Type.String({
  enum: ['creating', 'running', 'paused', 'restoring', 'error', 'destroyed'],
  description:
    '`creating` while set-up steps (clone, packages, agents, init_script) run; then `running`, or `error` with `error` saying which step failed. `paused`: every process frozen (no CPU, no compute charge), after POST …/pause or the idle timeout; POST …/resume makes it `running` again. `restoring` while a snapshot is being restored into it (a few seconds). `error` also when its processes crash or the runtime reports it broken (`error` says why; alert `sandbox_error`). `destroyed` after DELETE.',
});

export const SandboxListItem = Type.Object({
  id: Type.String(),
  status: Status,
  template: Type.String(),
  cpus: Type.Integer(),
  memory_mb: Type.Integer(),
  disk_gb: Type.Integer(),
  budget: Type.Union([Type.Number(), Type.Null()]),
  spend_usd: Type.Number({ description: 'compute_cost_usd + llm_cost_usd, as in GET /v1/sandboxes/{id}.' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const SandboxCreated = Type.Object({
  id: Type.String(),
  status: Status,
  template: Type.String(),
  ip: Nullable(Type.String()),
  cpus: Type.Integer(),
  memory_mb: Type.Integer(),
  disk_gb: Type.Integer(),
  network_mode: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const Sandbox = Type.Object(
  {
    id: Type.String(),
    status: Status,
    error: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why the sandbox is in `error`; a failed set-up step names itself and ends with the tail of its output, with secret values masked as `***`. For a confidential sandbox a key narrower than `full` gets the step and outcome without the output.',
    }),
    runtime: Type.String({ description: '`gvisor` or `runc`.' }),
    template: Type.String(),
    ip: Nullable(Type.String()),
    cpus: Type.Integer(),
    memory_mb: Type.Integer(),
    disk_gb: Type.Integer(),
    network_mode: Type.String(),
    allowlist: Type.Array(Type.String()),
    env: Type.Record(Type.String(), Type.String(), {
      description:
        'The env given at create. For a confidential sandbox (created with secrets, by a pipeline stage or an eval run, or restored from a confidential snapshot) a key narrower than `full` sees the names with the values replaced by `***`.',
    }),
    repo: Nullable(Type.String()),
    repo_branch: Nullable(Type.String()),
    repo_commit: Nullable(Type.String()),
    repo_subdir: Nullable(Type.String()),
    budget: Type.Union([Type.Number(), Type.Null()]),
    spend_usd: Type.Number({ description: 'compute_cost_usd + llm_cost_usd, as checked against budget (checked at least every PADDOCK_BUDGET_CHECK_INTERVAL_MS).' }),
    compute_cost_usd: Type.Number({ description: "vCPUs and memory times running time at the server's rates; nothing while paused or after it stopped." }),
    llm_cost_usd: Type.Number({ description: "LLM cost recorded in the sandbox's sessions." }),
    on_complete: Nullable(Type.String()),
    on_budget_exceeded: Nullable(Type.String()),
    init_script: Nullable(
      Type.String({ description: 'The init_script given at create. For a confidential sandbox a key narrower than `full` sees `***` in its place (a script often carries a credential).' }),
    ),
    timeout: Type.Union([Type.Integer(), Type.Null()]),
    packages: Type.Array(Type.String()),
    agents: Type.Array(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    last_activity_at: Type.String({ format: 'date-time' }),
    destroyed_at: Nullable(Type.String({ format: 'date-time' })),
    destroyed_reason: Type.Union([Type.Literal('deleted'), Type.Literal('budget_exceeded'), Type.Null()], { description: '`deleted` (DELETE) or `budget_exceeded` once destroyed; null before.' }),
    secrets: Type.Array(Type.String(), { description: 'Names of the account secrets injected; never their values. Non-empty means the sandbox is confidential (only `full` keys reach inside it).' }),
    paused_at: Nullable(Type.String({ format: 'date-time', description: 'When the sandbox was paused; null unless `paused`.' })),
  },
  { $id: 'Sandbox' },
);

export const SandboxParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    include_destroyed: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const ExecBody = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: 100_000, description: 'Run with /bin/sh -c in /workspace with the sandbox env.' }),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 300, default: 300, description: 'Seconds; the command is killed after it (exit_code 124, timed_out true).' })),
    env: Type.Optional(Env(100, 'Merged over the sandbox env for this command.')),
    cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, pattern: '^/' })),
  },
  { additionalProperties: false },
);
export type ExecInput = Static<typeof ExecBody>;

export const ExecResult = Type.Object({
  output: Type.String({ description: 'stdout when exit_code is 0; otherwise stderr (stdout when stderr is empty).' }),
  exit_code: Type.Integer(),
  error: Type.Optional(Type.String({ description: 'Set only for an infrastructure failure (sandbox not running or unreachable); exit_code is then 1.' })),
  stdout: Type.String(),
  stderr: Type.String(),
  truncated: Type.Boolean({ description: 'True when stdout or stderr exceeded 1 MiB and was cut.' }),
  timed_out: Type.Boolean(),
  duration_ms: Type.Integer(),
});

/** The answer of pause and resume. */
export const PauseResult = Type.Object({
  id: Type.String(),
  status: Type.String({ description: '`paused` after pause, `running` after resume.' }),
  paused_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_activity_at: Type.String({ format: 'date-time' }),
  snapshot_id: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'Pause only: the automatic snapshot (kind `pause`, status `creating` until its copy finishes). Null when the sandbox was already paused or a limit left no room.',
    }),
  ),
  snapshot_error: Type.Optional(Type.String({ description: 'Pause only: why no automatic snapshot was taken.' })),
});
