// Which sandboxes a run's stage attempts created, for features that attribute sandboxes to runs
// (a run's session is charged their compute and lists their sessions). A plain read, no runtime needed.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import { sandboxesOfRun } from './store.js';

export class RunSandboxes {
  constructor(private readonly db: Kysely<Database>) {}

  of(runId: string): Promise<string[]> {
    return sandboxesOfRun(this.db, runId);
  }
}
