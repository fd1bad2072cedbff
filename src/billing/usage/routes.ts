// HTTP surface of usage: GET /v1/billing/usage, the per-day history of the account's usage.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ErrorResponse } from '../../core/error-body.js';
import type { Usage, UsageReader } from '../contract.js';
import { MAX_HISTORY_DAYS, usageHistory } from './history.js';
import type { PeriodOf } from './period.js';

const UsageFields = {
  compute_hours: Type.Number({ description: 'Sandbox running hours: one per hour a sandbox runs, whatever its size; paused and stopped time count nothing.' }),
  compute_cost_usd: Type.Number({ description: "Running time at this server's vCPU and GiB hourly rates." }),
  llm_cost_usd: Type.Number({ description: "LLM cost of the account's sessions, counted on the UTC day each session was first recorded." }),
  total_cost_usd: Type.Number({ description: 'compute_cost_usd + llm_cost_usd.' }),
  sandboxes_created: Type.Integer(),
};

const UsageHistoryResponse = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), ...UsageFields })),
  totals: Type.Object(UsageFields),
});

const UsageQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'First UTC day, YYYY-MM-DD (default: the first day of the current period).' })),
  to: Type.Optional(Type.String({ description: `Last UTC day, YYYY-MM-DD, included (default: the last day of the current period); at most ${MAX_HISTORY_DAYS} days after from.` })),
});

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 429: ErrorResponse };

export function usageRoutes(deps: { usage: UsageReader; periodOf: PeriodOf }): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.get('/v1/billing/usage', {
      config: { access: { kind: 'key', area: 'billing' } },
      schema: {
        tags: ['billing'],
        summary: "The account's usage per UTC day",
        description: `For charts. Without from and to: the current billing period (the calendar month for an account without a subscription), its first and last days counting only the part inside the period, so totals equal the subscription's usage. With them: whole UTC days from through to, at most ${MAX_HISTORY_DAYS}. A running sandbox counts up to now. Days without usage are listed with zeros.`,
        querystring: UsageQuery,
        response: { 200: UsageHistoryResponse, ...errors },
      },
      handler: async (request) => {
        const history = await usageHistory(deps, request.principal!.accountId, request.query);
        return { from: history.from, to: history.to, days: history.days.map((day) => ({ date: day.date, ...usageBody(day) })), totals: usageBody(history.totals) };
      },
    });
  };
}

/** Usage as the API answers it (snake case, rounded to a millionth). */
export function usageBody(usage: Usage) {
  return {
    compute_hours: round(usage.computeHours),
    compute_cost_usd: round(usage.computeCostUsd),
    llm_cost_usd: round(usage.llmCostUsd),
    total_cost_usd: round(usage.totalCostUsd),
    sandboxes_created: usage.sandboxesCreated,
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
