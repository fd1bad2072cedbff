// Request and response shapes of the alert and rule endpoints: they validate input and document the API.
import { Type, type Static } from '@sinclair/typebox';
import { ALERT_SEVERITIES, ALERT_TYPES } from './contract.js';
import { CHANNELS } from './rules.js';
import { Nullable, StringEnum } from '../core/schemas.js';

export const MAX_PAGE_LIMIT = 100;

const AlertTypeSchema = StringEnum(ALERT_TYPES);
const SeveritySchema = StringEnum(ALERT_SEVERITIES);
export const ChannelSchema = StringEnum(CHANNELS);

export const Alert = Type.Object(
  {
    id: Type.String(),
    type: AlertTypeSchema,
    severity: StringEnum(ALERT_SEVERITIES, {
      description:
        'Fixed per type: budget_warning and trust_low warning; budget_critical, budget_exceeded and trust_critical critical; sandbox_error error; idle_timeout info; quota_warning warning, quota_exceeded critical, payment_failed error (account alerts from billing, sandbox_id null).',
    }),
    message: Type.String(),
    sandbox_id: Nullable(Type.String()),
    resolved: Type.Boolean({ description: 'False when raised; true after POST /v1/alerts/{id}/resolve (or when the raising feature sees the condition clear).' }),
    created_at: Type.String({ format: 'date-time' }),
    resolved_at: Nullable(Type.String({ format: 'date-time' })),
    resource: Type.Object(
      { kind: Type.String({ description: '`sandbox`, `session` or `run`.' }), id: Type.String() },
      { description: 'What the alert is about. At most one unresolved alert exists per type and resource.' },
    ),
    details: Type.Record(Type.String(), Type.Unknown(), { description: 'Type-specific facts (e.g. the sandbox error text, the spend and budget, the trust score).' }),
  },
  { $id: 'Alert' },
);

export const AlertRule = Type.Object(
  {
    id: Type.String(),
    type: AlertTypeSchema,
    enabled: Type.Boolean({ description: 'A disabled rule raises nothing: no alert, notification or delivery is recorded.' }),
    threshold: Type.Union([Type.Number(), Type.Null()], {
      description:
        'Budget rules: a fraction of the sandbox budget, 0.0-1.0 (defaults 0.8, 0.95, 1.0). Trust rules: a trust score 0-100; the alert is raised when the score drops below it (defaults 70, 50). Quota rules: a fraction of the plan’s monthly compute hours, 0.0-1.0 (defaults 0.8, 1.0). sandbox_error, idle_timeout and payment_failed: null.',
    }),
    threshold_unit: Type.Union([StringEnum(['budget_fraction', 'trust_score', 'quota_fraction']), Type.Null()]),
    channels: Type.Array(ChannelSchema, {
      description: 'Where alerts of this type are delivered besides the in-app notification; a channel delivers only once GET /v1/notifications/config enables it. Default: all four.',
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'AlertRule' },
);

export const ListAlertsQuery = Type.Object(
  {
    resolved: Type.Optional(Type.Boolean({ description: 'true: only resolved alerts; false: only open ones; absent: both.' })),
    type: Type.Optional(AlertTypeSchema),
    sandbox_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    severity: Type.Optional(SeveritySchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);
export type ListAlertsInput = Static<typeof ListAlertsQuery>;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const UpdateRuleBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    threshold: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: "See the rule's threshold: validated per type." })),
    channels: Type.Optional(Type.Array(ChannelSchema, { uniqueItems: true, maxItems: CHANNELS.length })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateRuleInput = Static<typeof UpdateRuleBody>;
