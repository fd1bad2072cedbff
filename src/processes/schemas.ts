// Request and response shapes of the background process endpoints.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../core/schemas.js';

export const SIGNALS = ['SIGTERM', 'SIGKILL', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'] as const;

export const ProcessParams = Type.Object({ id: Type.String({ maxLength: 64 }), pid: Type.String({ maxLength: 64 }) });

export const StartBody = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: 65_536, description: 'Run by /bin/sh -c in its own process group.' }),
    env: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 32_768 }), { maxProperties: 100, propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }, description: 'Merged over the sandbox env.' }),
    ),
    cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, pattern: '^/', description: 'Default /workspace; must be a directory.' })),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._:-]+$', description: 'Free label to filter the list by.' })),
  },
  { additionalProperties: false },
);
export type StartBody = Static<typeof StartBody>;

export const ListQuery = Type.Object({ status: Type.Optional(StringEnum(['running', 'exited'])), tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false });

export const OutputQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Byte offset in the output (stdout and stderr together).' })),
    follow: Type.Optional(Type.Boolean({ default: false })),
    wait_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000, description: 'Without follow: wait up to this long for output past `offset` when there is none yet.' })),
  },
  { additionalProperties: false },
);

export const StdinBody = Type.Object(
  {
    data: Type.String({ maxLength: 1024 * 1024, description: 'UTF-8 text written to the process stdin (at most 1 MiB per request).' }),
    eof: Type.Optional(Type.Boolean({ default: false, description: 'Close the process stdin after `data`.' })),
  },
  { additionalProperties: false },
);

export const SignalBody = Type.Object({ signal: StringEnum(SIGNALS) }, { additionalProperties: false });

export const Process = Type.Object({
  id: Type.String({ description: 'proc_…: the {pid} in paths.' }),
  sandbox_id: Type.String(),
  command: Type.String(),
  tag: Nullable(Type.String()),
  cwd: Type.String(),
  status: StringEnum(['running', 'exited']),
  exit_code: Nullable(Type.Integer({ description: '128+N when killed by signal N; null while running, or when the process was lost (its supervisor was killed).' })),
  signal: Nullable(Type.String({ description: 'The signal that ended it (SIGKILL), else null.' })),
  os_pid: Type.Integer({ description: 'Its pid inside the sandbox (also its process group).' }),
  started_at: Type.String({ format: 'date-time' }),
  ended_at: Nullable(Type.String({ format: 'date-time' })),
  output_bytes: Type.Integer({ description: 'Bytes of output written so far (the ring keeps about the newest 1 MiB).' }),
});

export const OutputPage = Type.Object({
  chunks: Type.Array(Type.Object({ stream: StringEnum(['stdout', 'stderr']), offset: Type.Integer(), data: Type.String() })),
  next_offset: Type.Integer({
    description: 'The byte offset to read from next. While the process runs, a page never ends inside a UTF-8 character: its first bytes wait for the next page.',
  }),
  truncated: Type.Boolean({ description: 'The requested offset had left the ring: chunks start at the oldest byte kept.' }),
  status: StringEnum(['running', 'exited']),
  exit_code: Nullable(Type.Integer()),
});
