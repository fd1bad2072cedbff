// Request and response shapes of the session and event endpoints: they validate input and document the API.
import { Type } from '@sinclair/typebox';
import { EVENT_TYPES, LIFECYCLE_STATUSES, MAX_EVENTS_PER_REQUEST } from './ingest-validation.js';
import { SESSION_STATUSES } from './timeline.js';
import { TRUST_RULES } from './trust.js';
import { Nullable, StringEnum } from '../core/schemas.js';

const EventTypeEnum = StringEnum(EVENT_TYPES);
export const MAX_REPLAY_LIMIT = 1000;

export const IngestBody = Type.Object(
  {
    events: Type.Array(Type.Unknown(), {
      description: `Up to ${MAX_EVENTS_PER_REQUEST} events (more → 400). Each is checked on its own: \`{id?, session_id, sandbox_id | pipeline_run_id, type, timestamp, meta?, payload?}\`.
- \`id\`: optional UUID chosen by the client; an event whose id the session already holds is not stored again (counted in \`accepted\` and \`duplicates\`), so a batch can be retried safely.
- \`session_id\`: 1-128 of \`[A-Za-z0-9._:-]\`; the session is created by its first event and bound to that event's sandbox.
- \`sandbox_id\`: a sandbox of the authenticated account (destroyed ones included).
- \`pipeline_run_id\` (instead of \`sandbox_id\`): the event goes to that run's session, whose id is the run's \`session_id\`; any type but \`lifecycle\` (Paddock records the run's lifecycle itself). LLM cost and trust findings recorded there count in the run's gates.
- \`type\`: ${EVENT_TYPES.join(', ')}.
- \`timestamp\`: ISO 8601 with a zone; at most 5 minutes in the future and 30 days in the past.
- \`meta\`, \`payload\`: objects. Fields read by Paddock: llm_call \`model\`, \`provider\`, \`tokens_in\`, \`tokens_out\`, \`cost_usd\`; command \`command\`, \`exit_code\`, \`output\`; network \`allowed\` (false = a denied attempt), \`host\`, \`url\`; file_op \`operation\`, \`path\`; error \`message\`; lifecycle \`status\` (${LIFECYCLE_STATUSES.join(', ')}), \`agent_type\`, \`model\`; \`meta.agent_type\` on any event.`,
    }),
  },
  { additionalProperties: false },
);

export const IngestResult = Type.Object({
  accepted: Type.Integer({ description: 'Events stored, plus repeats of events already stored (see `duplicates`).' }),
  errors: Type.Integer({ description: 'Events refused; each is listed in `details`.' }),
  duplicates: Type.Integer({ description: 'Accepted events whose client `id` was already stored in the session, so they were not stored again.' }),
  details: Type.Array(Type.Object({ index: Type.Integer({ description: 'Position in `events`.' }), reason: Type.String() })),
});

const Owner = {
  sandbox_id: Nullable(Type.String({ description: 'The sandbox the session was recorded in; null for the session of a pipeline run.' })),
  pipeline_run_id: Nullable(
    Type.String({
      description:
        'The pipeline run whose timeline this session records (null for sandbox sessions). Every run gets one session when it is created; Paddock appends each pipeline lifecycle event to it as a `lifecycle` event (payload `event`: `pipeline.run.created`, `pipeline.stage.completed`, …) in the transaction of the transition. Clients may add other events to it by sending `pipeline_run_id` instead of `sandbox_id` to the ingest endpoint.',
    }),
  ),
};

export const Session = Type.Object({
  id: Type.String(),
  ...Owner,
  status: StringEnum(SESSION_STATUSES),
  agent_type: Nullable(Type.String()),
  model: Nullable(Type.String()),
  tokens_in: Type.Integer(),
  tokens_out: Type.Integer(),
  cost_usd: Type.Number({ description: 'llm_cost_usd + compute_cost_usd.' }),
  llm_cost_usd: Type.Number(),
  compute_cost_usd: Type.Number({
    description:
      "Sandbox compute attributed to the session: the sandbox's metered compute (vCPU and memory while running, at the server's rates) between the session's first event and its end (now while active). Overlapping sessions of one sandbox are each charged their span. A run's session is charged the compute of the sandboxes the run's stages created.",
  }),
  trust_score: Type.Integer({ minimum: 0, maximum: 100 }),
  event_count: Type.Integer(),
  duration_ms: Type.Integer({ description: 'From the earliest to the latest event timestamp (or the end).' }),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  ended_at: Nullable(Type.String({ format: 'date-time' })),
  last_event_at: Nullable(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const ReplayEvent = Type.Object({
  id: Type.String({ format: 'uuid' }),
  session_id: Type.String(),
  sequence: Type.Integer({ description: '1, 2, 3 … per session in the order the server received the events; no gaps.' }),
  type: EventTypeEnum,
  timestamp: Type.String({ format: 'date-time' }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The payload as sent. Commands run through the exec API hold `command`, `exit_code`, `output` (first 16,384 characters), `truncated`, `duration_ms`, `timed_out`.',
  }),
  meta: Type.Record(Type.String(), Type.Unknown()),
  cost_usd: Type.Optional(Type.Number({ description: 'llm_call only: as sent, or priced from the model table.' })),
});

export const ReplayPage = Type.Object({
  events: Type.Array(ReplayEvent),
  has_more: Type.Boolean(),
  next_seq: Type.Integer({ description: 'Pass as after_seq for the next page; on the last page, where new events will start.' }),
  total: Type.Integer({ description: 'Events in the session (of `type` when filtered).' }),
});

export const Finding = Type.Object({
  rule: Type.String({ enum: Object.keys(TRUST_RULES) }),
  severity: StringEnum(['low', 'medium', 'high', 'critical']),
  weight: Type.Integer({ description: "The rule's points per finding." }),
  penalty: Type.Integer({ description: 'Points this finding took off the score (0 once the rule reached its cap).' }),
  sequence: Type.Integer({ description: 'The event that tripped the rule.' }),
  evidence: Type.String({ description: 'What matched; secrets are redacted.' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const ReplaySummary = Type.Object({
  session_id: Type.String(),
  ...Owner,
  status: StringEnum(SESSION_STATUSES),
  event_count: Type.Integer(),
  counts: Type.Object(Object.fromEntries(EVENT_TYPES.map((type) => [type, Type.Integer()]))),
  first_event_at: Nullable(Type.String({ format: 'date-time' })),
  last_event_at: Nullable(Type.String({ format: 'date-time' })),
  duration_ms: Type.Integer(),
  tokens_in: Type.Integer(),
  tokens_out: Type.Integer(),
  cost_usd: Type.Number(),
  llm_cost_usd: Type.Number(),
  compute_cost_usd: Type.Number(),
  trust_score: Type.Integer(),
  findings: Type.Array(Finding),
});

export const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

export const ReplayQuery = Type.Object(
  {
    after_seq: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Events with a greater sequence; pass the previous next_seq.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_REPLAY_LIMIT, default: 100 })),
    type: Type.Optional(EventTypeEnum),
  },
  { additionalProperties: false },
);

export const AccountSessionListQuery = Type.Object(
  {
    pipeline_run_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "Sessions of this run: the run's own session and the sessions of the sandboxes its stages created (what its gates' `trust_above` and `cost_below` read).",
      }),
    ),
    sandbox_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Sessions recorded in this sandbox.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_REPLAY_LIMIT, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })),
    status: Type.Optional(StringEnum(SESSION_STATUSES)),
  },
  { additionalProperties: false },
);

export const SessionListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_REPLAY_LIMIT, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })),
    status: Type.Optional(StringEnum(SESSION_STATUSES)),
  },
  { additionalProperties: false },
);
