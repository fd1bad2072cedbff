// POST /v1/sandboxes/{id}/exec/stream answers NDJSON while the command runs: one JSON object a line.
import { request } from '../../../api/client';
import type { ExecRequest, ExecStreamLine } from './types';

/** Runs the command and calls `onLine` for every line as it arrives; resolves with the final `exit` line. */
export async function streamExec(sandboxId: string, body: ExecRequest, onLine: (line: ExecStreamLine) => void, signal?: AbortSignal): Promise<Extract<ExecStreamLine, { type: 'exit' }>> {
  const response = await request<Response>(`/v1/sandboxes/${sandboxId}/exec/stream`, { method: 'POST', body, asResponse: true, signal, headers: { accept: 'application/x-ndjson' } });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  let exit: Extract<ExecStreamLine, { type: 'exit' }> | null = null;
  const take = (text: string) => {
    if (!text.trim()) return;
    const line = JSON.parse(text) as ExecStreamLine;
    if (line.type === 'exit') exit = line;
    onLine(line);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += value;
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      take(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
    }
  }
  take(pending);
  if (!exit) throw new Error('the command stream ended without an exit status');
  return exit;
}
