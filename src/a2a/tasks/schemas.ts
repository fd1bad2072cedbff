// Request and response shapes of tasks: they validate input and document the API (the rules every
// route shares are in TASK_RULES).
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../core/schemas.js';
import { TASK_STATUSES } from '../contract.js';
import { MAX_PARTS } from './parts.js';

export const MAX_TASK_PAGE = 100;
export const DEFAULT_TASK_PAGE = 20;
export const MAX_PRIORITY = 1000;

/** What every task route documents: how a task follows its run. */
export const TASK_RULES =
  "A task is one run of its agent's pipeline (`run_id`; its session `session_id` holds the run's timeline, cost and trust). Status follows the run: `pending` (run created) → `running` (run started) → `input_needed` while an `await_approval` stage waits (`status_message` = its message; answer with POST /messages) → `running` → `completed` (run succeeded) / `failed` (run failed, or the cost reached `max_cost_per_task`: `status_message` starts with `budget_exceeded`) / `canceled` (cancel, or a reply rejecting the approval). " +
  "The run receives the task: env `A2A_TASK_ID`, `A2A_SKILL_ID`, `A2A_INPUT` (the input as JSON) on every stage (a stage `env` naming the same variable wins), and run state key `task_input` (JSON). The agent's `template` replaces the pipeline's default template for command stages that name none. " +
  "`output` is the run state entry `task_output` when the run succeeds (JSON entries parsed, others as their string; null when absent). Run state entries of type `file` or `artifact` become `artifacts` (name = the state key, mime_type = the entry's, else application/octet-stream) as stages end; GET /v1/a2a/tasks/{id}/artifacts/{artifact_id} answers the entry's value as bytes (UTF-8). " +
  "`progress.percentage` = finished stages / all stages × 100 (floored), `current_step` the first running or waiting stage. `cost_usd` = the run's compute + LLM + reported stage cost, refreshed on every run event and every PADDOCK_A2A_BUDGET_INTERVAL_MS for tasks with a limit. `priority` (0 by default, -1000 to 1000) is the run's: when stages of several runs wait for a worker, those of higher priority are claimed first (it never stops a running stage). " +
  'Every change is appended to the task\'s event log (`status`, `progress`, `message`, `artifact`, then `complete` {status, output} after completion or `error` {status, error} after failure and cancellation), which the task stream replays. Errors answer `{"error": {"code", "message", "details"}}`.';

export const TaskParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const AgentTaskParams = Type.Object({ agentId: Type.String({ minLength: 1, maxLength: 64 }) });
export const ArtifactParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), artifact_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateTaskBody = Type.Object(
  {
    skill_id: Type.String({ minLength: 1, maxLength: 64, description: "One of the agent's skills (400 `skill_not_found` otherwise)." }),
    input: Type.Object({}, { additionalProperties: true, description: "Must match the skill's `input_schema` (400 `invalid_input`, `details.errors` listing each mismatch)." }),
    priority: Type.Optional(
      Type.Integer({ minimum: -MAX_PRIORITY, maximum: MAX_PRIORITY, default: 0, description: 'Default 0: stages of higher-priority tasks are claimed first when several wait for a worker.' }),
    ),
  },
  { additionalProperties: false },
);

const Progress = Type.Object({ percentage: Type.Number(), current_step: Nullable(Type.String()), message: Nullable(Type.String()) });
const Artifact = Type.Object({ id: Type.String(), name: Type.String(), mime_type: Type.String(), created_at: Type.String({ format: 'date-time' }) });

export const Task = Type.Object(
  {
    id: Type.String(),
    agent_id: Type.String(),
    status: StringEnum(TASK_STATUSES),
    status_message: Nullable(Type.String()),
    progress: Progress,
    skill_id: Type.String(),
    input: Type.Object({}, { additionalProperties: true }),
    priority: Type.Integer(),
    output: Type.Unknown({ description: 'The run state entry `task_output` once completed; null before.' }),
    artifacts: Type.Array(Artifact),
    cost_usd: Type.Number(),
    context_id: Type.String(),
    run_id: Type.String(),
    session_id: Nullable(Type.String()),
    started_at: Nullable(Type.String({ format: 'date-time' })),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'A2aTask' },
);

export const TaskListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(TASK_STATUSES)),
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    context_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TASK_PAGE, default: DEFAULT_TASK_PAGE })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);

const RawPart = Type.Object(
  {
    type: Type.String({ description: '`text`, `data` or `file`.' }),
    text: Type.Optional(Type.Unknown({ description: 'text: the text (non-empty).' })),
    data: Type.Optional(Type.Unknown({ description: 'data: any JSON value but null; file: the content, base64.' })),
    name: Type.Optional(Type.Unknown({ description: 'data: optional label; file: the file name (1-255 characters).' })),
    mime_type: Type.Optional(Type.Unknown({ description: 'file: its media type, e.g. text/plain.' })),
  },
  { additionalProperties: false },
);

export const MessageBody = Type.Object(
  { parts: Type.Array(RawPart, { minItems: 1, maxItems: MAX_PARTS, description: `1 to ${MAX_PARTS} parts; a bad part is a 400 naming it (\`body.parts[i].field\`).` }) },
  { additionalProperties: false },
);

export const Message = Type.Object({
  id: Type.String(),
  task_id: Type.String(),
  role: StringEnum(['user', 'agent'] as const),
  parts: Type.Array(Type.Object({}, { additionalProperties: true })),
  created_at: Type.String({ format: 'date-time' }),
});

export const CancelBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: "Becomes the task's `status_message` (default: `canceled through the API`)." })) },
  { additionalProperties: false },
);

export const CancelResult = Type.Object({ id: Type.String(), status: StringEnum(TASK_STATUSES), status_message: Nullable(Type.String()) });

export const EventsQuery = Type.Object(
  { after_seq: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) },
  { additionalProperties: false },
);

export const TaskEventSchema = Type.Object({
  sequence: Type.Integer(),
  kind: Type.String(),
  data: Type.Object({}, { additionalProperties: true }),
  created_at: Type.String({ format: 'date-time' }),
});
