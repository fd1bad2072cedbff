// What a sandbox has spent: its metered compute plus the LLM cost recorded in its sessions. This is the
// figure budgets are checked against and GET /v1/sandboxes/{id} shows as `spend_usd`.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import type { ComputeMeter } from './service.js';

export interface LlmCostSource {
  /** LLM cost in USD of each sandbox's sessions (ids without sessions may be missing). */
  llmCostUsd(sandboxIds: readonly string[], db?: Kysely<Database>): Promise<Map<string, number>>;
}

export interface SandboxSpend {
  computeUsd: number;
  llmUsd: number;
  totalUsd: number;
  /** Compute cost per second right now; 0 when the sandbox is not running. */
  usdPerSecond: number;
}

export class SpendCalculator {
  constructor(
    readonly meter: ComputeMeter,
    private readonly llm: LlmCostSource,
  ) {}

  async of(sandboxIds: readonly string[], options: { nowMs?: number; db?: Kysely<Database> } = {}): Promise<Map<string, SandboxSpend>> {
    const [compute, llm] = await Promise.all([this.meter.ofSandboxes(sandboxIds, options), this.llm.llmCostUsd(sandboxIds, options.db)]);
    const result = new Map<string, SandboxSpend>();
    for (const id of sandboxIds) {
      const { costUsd, usdPerSecond } = compute.get(id)!;
      const llmUsd = llm.get(id) ?? 0;
      result.set(id, { computeUsd: costUsd, llmUsd, totalUsd: costUsd + llmUsd, usdPerSecond });
    }
    return result;
  }

  async ofOne(sandboxId: string, options: { nowMs?: number; db?: Kysely<Database> } = {}): Promise<SandboxSpend> {
    return (await this.of([sandboxId], options)).get(sandboxId)!;
  }
}
