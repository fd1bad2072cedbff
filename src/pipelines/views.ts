// Pipeline records as the API shows them.
import type { PipelineRow, VersionRow } from './store.js';

export function pipelineView(row: PipelineRow, version: VersionRow) {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    description: version.description,
    status: row.status,
    version: row.version,
    stages: JSON.parse(version.stages),
    defaults: JSON.parse(version.defaults),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function versionView(row: PipelineRow, version: VersionRow) {
  return {
    pipeline_id: row.id,
    name: row.name,
    version: version.version,
    description: version.description,
    stages: JSON.parse(version.stages),
    defaults: JSON.parse(version.defaults),
    created_at: version.created_at,
  };
}
