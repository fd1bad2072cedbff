// Request and response shapes of the pipeline endpoints: they validate input and document the API.
import { Type } from '@sinclair/typebox';
import { CHANNELS_FOR_APPROVAL } from './definition/approval-channels.js';
import { MAX_RETRY_ATTEMPTS, MAX_STAGES } from './definition/validate.js';
import { STAGE_TYPES, STATE_ENTRY_TYPES } from './stages/contract.js';
import { MAX_KEY_CHARS, MAX_TTL_SECONDS } from './state/limits.js';
import { Nullable, StringEnum } from '../core/schemas.js';
import { PIPELINE_STATUSES, RUN_STATUSES, STAGE_STATUSES } from './engine/statuses.js';

const Duration = (description: string) => Type.String({ description: `${description} A duration string: a whole number and a unit (ms, s, m, h, d), e.g. \`30s\`, \`5m\`, \`1h30m\`.` });
const StringMap = Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String(), { description: 'String key/value pairs (environment variables).' });

const Retry = Type.Object(
  {
    max_attempts: Type.Optional(Type.Integer({ description: `Attempts in total (1 = no retry), at most ${MAX_RETRY_ATTEMPTS}. Default 1.` })),
    backoff: Type.Optional(Duration('Delay before the second attempt; each later one waits twice as long. Default 1s.')),
    max_backoff: Type.Optional(Duration('Upper bound of the delay. Default 5m.')),
  },
  { additionalProperties: false },
);

const Condition = Type.Object(
  {
    on_success: Type.Optional(Type.Boolean({ description: 'Run only if every dependency succeeded (also the default when no condition is set).' })),
    on_failure: Type.Optional(Type.Boolean({ description: 'Run only if at least one dependency failed.' })),
    if: Type.Optional(
      Type.String({
        description:
          'CEL expression that must be true for the stage to run, type-checked when the pipeline is saved. Variables: `input` (`env`, `repo`, `branch`, `trigger`), `stages` (by name, finished stages: `status`, `exit_code`, `attempt`), `state` (the run state by key; JSON entries parsed). Example: `input.branch == "main" && stages.test.exit_code == 0`.',
      }),
    ),
  },
  { additionalProperties: false, description: 'A stage whose dependency failed, was skipped or canceled is skipped unless on_failure is set (GitHub Actions semantics); `if` must hold as well.' },
);

export const StageDefinition = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Unique within the pipeline: 1-64 of letters, digits, `_`, `-`.' }),
    type: StringEnum(STAGE_TYPES),
    command: Type.Optional(Type.String({ maxLength: 65536, description: 'Shell command (type command), run with /bin/sh -c in /workspace of a fresh sandbox.' })),
    template: Type.Optional(Type.String({ description: 'Sandbox template (see GET /v1/templates); default `defaults.template`, else `minimal`.' })),
    timeout: Type.Optional(Duration('Per attempt; default 10m, at most 24h. The attempt is killed (its sandbox destroyed) when it passes.')),
    retry: Type.Optional(Retry),
    on_failure: Type.Optional(
      StringEnum(['stop', 'continue'], {
        description: '`stop` (default): a failure after all retries fails the run and cancels running stages. `continue`: other branches go on, and the failure does not fail the run.',
      }),
    ),
    depends_on: Type.Optional(Type.Array(Type.String(), { description: 'Names of stages this one waits for.' })),
    condition: Type.Optional(Condition),
    env: Type.Optional(StringMap),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: `Type-specific. await_approval: \`message\`, \`channels\` (${CHANNELS_FOR_APPROVAL.join(', ')}; dashboard is the in-app notification), \`sla_timeout\` (duration), \`auto_decision\` (\`reject\` or \`approve\`, applied when the SLA expires). gate: \`trust_above\` (0-100), \`cost_below\` (USD), \`expression\` (CEL, as condition.if), \`state_key\`, \`fail_fast\`. eval: exactly one of \`scenario_id\`|\`scenario_name\`|\`suite_id\`|\`suite_name\` (the spec types the ids as UUIDs; they are the ids Paddock gives scenarios, \`evs_…\`, and suites, \`evt_…\`: another shape → 400 naming the field), \`min_pass_rate\`, \`max_cost_usd\`, \`fail_on_regression\`, \`baseline_count\`, \`regression_threshold\`, \`store_result_in_state\`, \`result_state_key\`. a2a: \`agent_url\` (the agent's URL, its card at \`<agent_url>/.well-known/agent-card.json\`, e.g. a Paddock agent's \`url\`; or the card's own URL), \`skill_id\`, \`prompt\`, \`max_cost_usd\`, \`auth_secret\` (the name of an account secret whose value is sent as \`Authorization: Bearer <value>\` on every request to the agent, e.g. a Paddock API key; a name that is not a secret name or names no secret of the account → 400 on save; a secret deleted later fails the stage naming it).`,
      }),
    ),
  },
  { additionalProperties: false },
);

const Defaults = Type.Object(
  {
    template: Type.Optional(Type.String()),
    on_failure: Type.Optional(StringEnum(['stop', 'continue'])),
    retry: Type.Optional(Retry),
    timeout: Type.Optional(Duration('Default per-stage timeout (an extension of the spec).')),
  },
  { additionalProperties: false, description: 'Defaults for every stage that does not set its own.' },
);

export const CreatePipelineBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, description: 'Unique per account (409 otherwise), archived pipelines included.' }),
    description: Type.Optional(Type.String({ maxLength: 4096 })),
    stages: Type.Array(StageDefinition, { description: `1-${MAX_STAGES} stages forming a DAG through depends_on. A cycle is refused naming it.` }),
    defaults: Type.Optional(Defaults),
  },
  { additionalProperties: false },
);

export const UpdatePipelineBody = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'If sent, must equal the current name (pipelines are not renamed).' })),
    description: Type.Optional(Type.String({ maxLength: 4096 })),
    stages: Type.Array(StageDefinition),
    defaults: Type.Optional(Defaults),
  },
  { additionalProperties: false },
);

export const Pipeline = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  status: StringEnum(PIPELINE_STATUSES),
  version: Type.Integer(),
  stages: Type.Array(Type.Unknown()),
  defaults: Type.Unknown(),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const PipelineVersion = Type.Object({
  pipeline_id: Type.String(),
  name: Type.String(),
  version: Type.Integer(),
  description: Type.String(),
  stages: Type.Array(Type.Unknown()),
  defaults: Type.Unknown(),
  created_at: Type.String(),
});

export const PipelineListItem = Type.Object({ id: Type.String(), name: Type.String(), status: Type.String(), version: Type.Integer(), created_at: Type.String() });

export const PipelineParams = Type.Object({ id: Type.String() });
/** PostgreSQL's integer: Ajv takes `Infinity` and 1e300 for integers, which PostgreSQL then refuses with an error. */
export const MAX_INTEGER_PARAM = 2_147_483_647;
export const VersionParams = Type.Object({ id: Type.String(), version: Type.Integer({ minimum: 1, maximum: MAX_INTEGER_PARAM }) });
export const RunParams = Type.Object({ id: Type.String(), run_id: Type.String() });
export const StageLogParams = Type.Object({ id: Type.String(), run_id: Type.String(), stage: Type.String() });
export const StateParams = Type.Object({ id: Type.String(), run_id: Type.String(), key: Type.String({ maxLength: 4096 }) });
export const Page = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })), offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })) });

export const StartRunBody = Type.Object(
  {
    trigger: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'How the run was started; default `api`.' })),
    env: Type.Optional(StringMap),
    repo: Type.Optional(Type.String({ description: 'https URL of a git repository cloned into /workspace of every command stage sandbox.' })),
    branch: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Branch to clone; needs repo.' })),
  },
  { additionalProperties: false },
);

export const StageRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  status: StringEnum(STAGE_STATUSES),
  attempt: Type.Integer({ description: 'Attempts started so far (1 for the first).' }),
  exit_code: Nullable(Type.Integer()),
  duration_ms: Nullable(Type.Integer()),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
  error: Nullable(Type.String({ description: 'Why the stage failed or was skipped.' })),
  next_attempt_at: Nullable(Type.String({ description: 'When a retry is due (pending stages after a failed attempt).' })),
  cost_usd: Type.Number({ description: 'Cost stages reported beyond the compute of their sandboxes.' }),
  gate_result: Type.Optional(Type.Unknown()),
  approval: Type.Optional(Type.Unknown()),
});

const RunListItemProperties = {
  id: Type.String(),
  pipeline_id: Type.String(),
  pipeline_name: Type.String(),
  version: Type.Integer({ description: 'The pipeline version the run started with and keeps.' }),
  status: StringEnum(RUN_STATUSES),
  trigger: Type.String(),
  session_id: Nullable(
    Type.String({
      description:
        "The run's session (GET /v1/sessions/{id}, /replay): created with the run, it records every pipeline lifecycle event (`pipeline.run.created`, `pipeline.stage.started`, …) as a `lifecycle` event in the transaction of the transition, so replay shows the run's timeline. Its trust and LLM cost, with those of the sessions of the run's stage sandboxes, are what `trust_above` and `cost_below` gates read. Null for runs created before run sessions existed.",
    }),
  ),
  created_at: Type.String(),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
  duration_ms: Nullable(Type.Integer({ description: 'From start to completion (or now while running).' })),
};
export const RunListItem = Type.Object(RunListItemProperties);
export const Run = Type.Object({
  ...RunListItemProperties,
  input: Type.Object({ env: Type.Record(Type.String(), Type.String()), repo: Nullable(Type.String()), branch: Nullable(Type.String()) }),
  error: Nullable(Type.String()),
  updated_at: Type.String(),
  stages: Type.Array(StageRecord),
});

export const StageLogs = Type.Object({
  stage: Type.String(),
  status: Type.String(),
  attempts: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      status: Type.String({
        description:
          'running, succeeded, failed, canceled, lost (its worker stopped renewing the lease; another took it over), interrupted (handed back by its worker: the server shut down, or the worker could not renew the lease because the database did not answer).',
      }),
      exit_code: Nullable(Type.Integer()),
      error: Nullable(Type.String()),
      worker_id: Type.String(),
      stdout: Type.String({ description: 'First 1 MiB.' }),
      stderr: Type.String({ description: 'First 1 MiB.' }),
      started_at: Type.String(),
      completed_at: Nullable(Type.String()),
    }),
  ),
});

export const DecisionBody = Type.Object({ comment: Type.Optional(Type.String({ maxLength: 4096 })) }, { additionalProperties: false });
export const DecisionResult = Type.Object({ run_id: Type.String(), stage: StageRecord });

export const RunEvents = Type.Object({
  run_id: Type.String(),
  events: Type.Array(Type.Object({ sequence: Type.Integer(), type: Type.String(), stage: Nullable(Type.String()), data: Type.Unknown(), timestamp: Type.String() })),
  next_sequence: Type.Integer(),
  has_more: Type.Boolean(),
});
export const EventsQuery = Type.Object({ after_seq: Type.Optional(Type.Integer({ minimum: 0, default: 0 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) });

export const PutStateBody = Type.Object(
  {
    value: Type.Unknown({ description: 'String or JSON value (required); non-strings are stored JSON-serialized. At most 1 MB.' }),
    type: Type.Optional(StringEnum(STATE_ENTRY_TYPES, { description: 'Default `string` for a string value, `json` otherwise.' })),
    mime_type: Type.Optional(Type.String({ maxLength: 256 })),
    created_by: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Default `api`; stages write their name.' })),
    ttl_seconds: Type.Optional(Type.Integer({ description: `Default 604800 (7 days), at most ${MAX_TTL_SECONDS} (30 days) → 400.` })),
  },
  { additionalProperties: false },
);

export const StateEntry = Type.Object({
  key: Type.String({ maxLength: MAX_KEY_CHARS }),
  value: Type.String(),
  type: Type.String(),
  mime_type: Nullable(Type.String()),
  size_bytes: Type.Integer(),
  created_by: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.String({ description: 'Last write plus ttl_seconds; expired entries are invisible and purged.' }),
});
