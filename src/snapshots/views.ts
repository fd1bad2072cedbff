// Turns snapshot rows into the shape the API returns.
import type { SnapshotRow } from './store.js';

export function snapshotView(row: SnapshotRow) {
  return {
    id: row.id,
    sandbox_id: row.sandbox_id,
    name: row.name,
    size_bytes: Number(row.size_bytes),
    status: row.status,
    kind: row.kind,
    template: row.template,
    error: row.error,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}
