// Request and response shapes of the snapshot endpoints.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../core/schemas.js';

export const CreateSnapshotBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 128, description: 'Any label; need not be unique.' }) }, { additionalProperties: false });
export type CreateSnapshotInput = Static<typeof CreateSnapshotBody>;

export const RestoreSnapshotBody = Type.Object(
  { sandbox_id: Type.String({ minLength: 1, maxLength: 64, description: 'A running sandbox of the same account and the same template.' }) },
  { additionalProperties: false },
);
export type RestoreSnapshotInput = Static<typeof RestoreSnapshotBody>;

export const SnapshotParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const DownloadQuery = Type.Object({
  expires: Type.String({ maxLength: 20 }),
  signature: Type.String({ maxLength: 128 }),
});

export const Snapshot = Type.Object({
  id: Type.String(),
  sandbox_id: Type.String(),
  name: Type.String(),
  size_bytes: Type.Integer({ description: 'Size of the stored `.tar.gz` archive.' }),
  status: Type.String({
    enum: ['creating', 'completed', 'failed'],
    description:
      '`completed` for a snapshot answered by POST (it is taken before the answer). An automatic pause snapshot is `creating` while its copy runs, then `completed`, or `failed` with `error`.',
  }),
  kind: StringEnum(['manual', 'pause'], { description: '`pause`: taken automatically when the sandbox was paused; only the latest one per sandbox is kept.' }),
  template: Type.String({ description: 'The sandbox template the snapshot is relative to; it restores only onto a sandbox of this template.' }),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const DownloadLink = Type.Object({
  url: Type.String({ description: "Pre-signed: a GET needs no API key. Serves the `.tar.gz` of the sandbox's filesystem changes (paths relative to /)." }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const RestoreResult = Type.Object({
  snapshot_id: Type.String(),
  sandbox_id: Type.String(),
  status: Type.String({ description: 'The sandbox status after the restore: `running`.' }),
  restored_at: Type.String({ format: 'date-time' }),
  duration_ms: Type.Integer(),
});
