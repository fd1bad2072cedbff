// Pipeline definitions: create (version 1), update (a new immutable version), read, archive.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../core/db/database.js';
import type { Database } from '../core/db/schema.js';
import { Conflict, Invalid, NotFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/time.js';
import type { PipelineDefinition, PipelineDraft, StageDraft } from './definition/types.js';
import { validateDefinition } from './definition/validate.js';
import * as store from './store.js';
import { pipelineView, versionView } from './views.js';
import type { PipelineStatus } from './engine/statuses.js';

export interface DefinitionInput {
  name: string;
  description?: string;
  stages: StageDraft[];
  defaults?: PipelineDefinition['defaults'];
}

function draftOf(input: Omit<DefinitionInput, 'name'>): PipelineDraft {
  return { description: input.description ?? '', stages: input.stages, defaults: input.defaults ?? {} };
}

function versionRow(pipelineId: string, version: number, definition: PipelineDefinition, createdAt: string): store.VersionRow {
  return { pipeline_id: pipelineId, version, description: definition.description, stages: JSON.stringify(definition.stages), defaults: JSON.stringify(definition.defaults), created_at: createdAt };
}

export function parseVersion(row: store.VersionRow): PipelineDefinition {
  return { description: row.description, stages: JSON.parse(row.stages), defaults: JSON.parse(row.defaults) };
}

/** The secrets feature's: which of the account's secret names do not exist. */
export type MissingSecrets = (accountId: string, names: string[]) => Promise<string[]>;

export class PipelineService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly missingSecrets: MissingSecrets = async () => [],
  ) {}

  /** a2a stages' `auth_secret` must name an existing account secret when the pipeline is saved. */
  private async checkSecrets(accountId: string, stages: PipelineDraft['stages']): Promise<void> {
    const named = stages.flatMap((stage, index) => (stage.type === 'a2a' && typeof stage.config?.auth_secret === 'string' ? [{ index, name: stage.config.auth_secret }] : []));
    if (!named.length) return;
    const missing = new Set(await this.missingSecrets(accountId, [...new Set(named.map((one) => one.name))]));
    const first = named.find((one) => missing.has(one.name));
    if (first) throw new Invalid(`body.stages[${first.index}].config.auth_secret`, `names the secret ${first.name}, which does not exist (create it with PUT /v1/secrets/{name})`);
  }

  async create(accountId: string, input: DefinitionInput) {
    const definition = draftOf(input);
    validateDefinition(definition);
    await this.checkSecrets(accountId, definition.stages);
    const now = nowIso();
    const row: store.PipelineRow = { id: newId('pip'), account_id: accountId, name: input.name, status: 'active', version: 1, created_at: now, updated_at: now };
    const version = versionRow(row.id, 1, definition, now);
    try {
      await this.db.transaction().execute((trx) => store.insertPipeline(trx, row, version));
    } catch (error) {
      if (isUniqueViolation(error)) throw new Conflict(`a pipeline named "${input.name}" already exists in this account`, 'already_exists');
      throw error;
    }
    return pipelineView(row, version);
  }

  /** A new version; the name stays (it identifies the pipeline), runs in flight keep their version. */
  async update(accountId: string, id: string, input: Omit<DefinitionInput, 'name'> & { name?: string }) {
    const current = await this.getRow(accountId, id);
    if (input.name !== undefined && input.name !== current.name) throw new Conflict('a pipeline cannot be renamed: create a new pipeline instead');
    if (current.status === 'archived') throw new Conflict('the pipeline is archived');
    const definition = draftOf(input);
    validateDefinition(definition);
    await this.checkSecrets(accountId, definition.stages);
    const now = nowIso();
    const version = versionRow(id, current.version + 1, definition, now);
    await this.db.transaction().execute(async (trx) => {
      if (!(await store.bumpVersion(trx, id, current.version, now))) throw new Conflict('the pipeline changed meanwhile (another update or an archive); read it again');
      await trx.insertInto('pipeline_versions').values(version).execute();
    });
    return pipelineView({ ...current, version: version.version, updated_at: now }, version);
  }

  async getRow(accountId: string, id: string): Promise<store.PipelineRow> {
    const row = await store.findPipeline(this.db, accountId, id);
    if (!row) throw new NotFound('pipeline');
    return row;
  }

  async get(accountId: string, id: string) {
    const row = await this.getRow(accountId, id);
    return pipelineView(row, (await store.findVersion(this.db, id, row.version))!);
  }

  async list(accountId: string, options: { limit: number; offset: number; status?: PipelineStatus }) {
    const rows = await store.listPipelines(this.db, accountId, options);
    return rows.map((row) => ({ id: row.id, name: row.name, status: row.status, version: row.version, created_at: row.created_at }));
  }

  async versions(accountId: string, id: string) {
    const row = await this.getRow(accountId, id);
    return (await store.listVersions(this.db, id)).map((version) => versionView(row, version));
  }

  async version(accountId: string, id: string, version: number) {
    const row = await this.getRow(accountId, id);
    const found = await store.findVersion(this.db, id, version);
    if (!found) throw new NotFound(`version ${version} of the pipeline`);
    return versionView(row, found);
  }

  async archive(accountId: string, id: string): Promise<void> {
    const row = await this.getRow(accountId, id);
    if (row.status !== 'archived') await store.archivePipeline(this.db, id, nowIso());
  }
}
