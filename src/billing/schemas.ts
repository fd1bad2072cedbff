// Request and response shapes of pricing, the subscription and the account's billing actions.
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../core/schemas.js';

const PlanName = StringEnum(['free', 'pro', 'team', 'enterprise']);
const Instant = Type.String({ format: 'date-time' });

export const COMPUTE_HOURS_DEFINITION =
  'A running sandbox counts one compute hour per hour of running time, whatever its CPU and memory; paused and stopped time count nothing. Hours are counted per billing period (the calendar month, UTC, unless a payment processor sets the period).';

export const Pricing = Type.Object({
  currency: Type.Literal('usd'),
  provider: StringEnum(['manual', 'stripe'], { description: '`manual`: an operator approves plan requests (no payment processor); `stripe`: Stripe Checkout and Portal.' }),
  compute_hours: Type.String({ description: 'What a compute hour is.' }),
  plans: Type.Array(
    Type.Object({
      plan: PlanName,
      price_usd_per_month: Nullable(Type.Number({ description: 'null: a custom price agreed with the operator.' })),
      concurrent_sandboxes: Nullable(Type.Integer({ description: 'Sandboxes at once (not destroyed nor failed); null: unlimited.' })),
      compute_hours_per_month: Nullable(Type.Number({ description: 'null: unlimited.' })),
      requests_per_minute: Type.Integer(),
      description: Type.String(),
    }),
  ),
});

export const PlanRequest = Type.Object({
  id: Type.String({ examples: ['preq_01jz8k3m2q7c9w4x5y6z7a8b9c'] }),
  account_id: Type.String(),
  plan: StringEnum(['pro', 'team', 'enterprise']),
  status: StringEnum(['pending', 'approved', 'rejected', 'canceled']),
  reason: Nullable(Type.String({ description: 'Why it was rejected or canceled.' })),
  decided_by: Nullable(Type.String({ description: "The deciding operator's account id, or `console` (the `paddock accounts` CLI)." })),
  decided_at: Nullable(Instant),
  created_at: Instant,
  updated_at: Instant,
});

export const SubscriptionView = Type.Object({
  plan: PlanName,
  status: StringEnum(['active', 'past_due', 'canceled', 'pending'], {
    description:
      '`active`: the plan is in force (the free plan always is). `pending`: on the free plan with a plan request awaiting an operator (or a payment). `past_due`: a payment failed; the plan holds until `grace_ends_at`, then the free plan applies. `canceled`: the plan holds until `effective_at`, then the free plan applies (status `active` again).',
  }),
  provider: StringEnum(['manual', 'stripe']),
  current_period_start: Instant,
  current_period_end: Instant,
  cancel_at_period_end: Type.Boolean(),
  effective_at: Nullable(Instant),
  grace_ends_at: Nullable(Instant),
  pending_request: Nullable(PlanRequest),
  limits: Type.Object({ concurrent_sandboxes: Nullable(Type.Integer()), compute_hours_per_month: Nullable(Type.Number()), requests_per_minute: Type.Integer() }),
  usage: Type.Object({
    compute_hours: Type.Number(),
    compute_cost_usd: Type.Number({ description: 'Compute at the configured vCPU and GiB rates, for reference beside the plan price.' }),
    llm_cost_usd: Type.Number(),
    total_cost_usd: Type.Number(),
    sandboxes_created: Type.Integer(),
  }),
  operator: Type.Boolean({ description: "Whether this account is one of the server's operators (PADDOCK_OPERATORS, and the first account): it decides plan requests under /v1/admin." }),
});

export const CheckoutBody = Type.Object({ plan: PlanName }, { additionalProperties: false });

export const CheckoutAnswer = Type.Object({
  url: Type.String({ description: "Where to send the user: the payment processor's checkout page, or (manual) the dashboard's billing page showing the request pending." }),
  status: StringEnum(['pending', 'open'], { description: '`pending`: a plan request awaits an operator (`request_id`); `open`: a checkout page awaits payment.' }),
  request_id: Nullable(Type.String()),
});

export const UrlAnswer = Type.Object({ url: Type.String() });

export const CancelAnswer = Type.Object({
  status: Type.Literal('canceled'),
  effective_at: Type.String({ format: 'date-time', description: 'When the free plan applies: the end of the current period (now, for a withdrawn plan request).' }),
});
