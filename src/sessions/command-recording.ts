// A command run through the API, as the event recorded in its sandbox's session.
import { randomUUID } from 'node:crypto';
import type { TimelineEvent } from './timeline.js';

/** Characters of a command's output kept in its recorded event. */
export const RECORDED_OUTPUT_CHARS = 16 * 1024;
export const EXEC_AGENT_TYPE = 'paddock-exec';

export interface CommandRecord {
  accountId: string;
  sandboxId: string;
  command: string;
  exitCode: number;
  output: string;
  durationMs: number;
  timedOut: boolean;
  truncated: boolean;
  error?: string;
}

export function commandEvent(record: CommandRecord): TimelineEvent {
  const output = record.output.length > RECORDED_OUTPUT_CHARS ? record.output.slice(0, RECORDED_OUTPUT_CHARS) : record.output;
  return {
    id: randomUUID(),
    clientId: null,
    type: 'command',
    timestamp: new Date(Date.now() - record.durationMs).toISOString(),
    meta: { source: 'exec' },
    payload: {
      command: record.command,
      exit_code: record.exitCode,
      output,
      truncated: record.truncated || output.length < record.output.length,
      duration_ms: record.durationMs,
      timed_out: record.timedOut,
      ...(record.error ? { error: record.error } : {}),
    },
  };
}
