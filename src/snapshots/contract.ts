// What a snapshot record can be: how it was taken and how far it got.

/** `manual` (POST …/snapshots) or `pause` (taken automatically when the sandbox was paused). */
export const SNAPSHOT_KINDS = ['manual', 'pause'] as const;
export type SnapshotKind = (typeof SNAPSHOT_KINDS)[number];

export const SNAPSHOT_STATUSES = ['creating', 'completed', 'failed'] as const;
export type SnapshotStatus = (typeof SNAPSHOT_STATUSES)[number];
