// What a snapshot record can be: how it was taken and how far it got.
export { SNAPSHOT_KINDS, SNAPSHOT_STATUSES, type SnapshotKind, type SnapshotStatus } from '../core/db/column-values.js';
