// The spec's A2A rate limits: task creation per agent (its `rate_limit_rpm`), task polling 60 per minute
// per task. Limiters come from the shared factory, so server processes on one PostgreSQL share counts.
import { HttpError } from '../../core/errors.js';
import type { Limiter, LimiterFactory, RateDecision } from '../../core/rate-limit.js';
import type { AgentRecord } from '../contract.js';

export const POLLS_PER_MINUTE = 60;

export function rateHeaders(decision: RateDecision): Record<string, string> {
  return { 'x-ratelimit-limit': String(decision.limit), 'x-ratelimit-remaining': String(decision.remaining), 'x-ratelimit-reset': String(decision.resetAt) };
}

function refuse(decision: RateDecision, what: string): HttpError<429> {
  return new HttpError(
    429,
    `${what}: ${decision.limit} per minute; retry in ${decision.retryAfterSeconds} s`,
    'rate_limited',
    { limit: decision.limit, retry_after_seconds: decision.retryAfterSeconds },
    { ...rateHeaders(decision), 'retry-after': String(decision.retryAfterSeconds) },
  );
}

export class TaskLimits {
  /** One limiter per distinct rate_limit_rpm (a limiter's points are fixed), keyed by agent id. */
  private readonly perAgent = new Map<number, Promise<Limiter>>();

  private constructor(
    private readonly limiters: LimiterFactory,
    private readonly polls: Limiter,
  ) {}

  static async create(limiters: LimiterFactory): Promise<TaskLimits> {
    return new TaskLimits(limiters, await limiters.create({ keyPrefix: 'a2a_task_polls', points: POLLS_PER_MINUTE, durationSeconds: 60 }));
  }

  /** Counts a task creation against the agent's rate_limit_rpm; throws 429 rate_limited beyond it. */
  async creation(agent: AgentRecord): Promise<RateDecision | null> {
    const rpm = agent.rateLimitRpm;
    if (rpm === null) return null;
    let limiter = this.perAgent.get(rpm);
    if (!limiter) {
      limiter = this.limiters.create({ keyPrefix: `a2a_agent_rpm_${rpm}`, points: rpm, durationSeconds: 60 });
      this.perAgent.set(rpm, limiter);
    }
    const decision = await (await limiter).consume(agent.id);
    if (!decision.allowed) throw refuse(decision, `agent ${agent.id} takes at most ${rpm} new tasks per minute (rate_limit_rpm)`);
    return decision;
  }

  /** Counts one read of the task; throws 429 rate_limited beyond 60 per minute. */
  async polling(taskId: string): Promise<RateDecision> {
    const decision = await this.polls.consume(taskId);
    if (!decision.allowed) throw refuse(decision, `task ${taskId} may be read at most ${POLLS_PER_MINUTE} times per minute (stream it instead: GET /v1/a2a/tasks/${taskId}/stream)`);
    return decision;
  }
}
