// One line that says what an event was, from the payload fields Paddock reads per type (see the ingest
// schema): the model and tokens of an LLM call, the command and its exit code, the host of a network call…
import type { ReplayEvent } from './types';

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.length) return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

function join(...parts: (string | null | false | undefined)[]): string {
  return parts.filter(Boolean).join(' · ');
}

export function eventSummary(event: ReplayEvent): string {
  const d = event.data;
  switch (event.type) {
    case 'llm_call':
      return join(
        text(d.model) ?? 'LLM call',
        text(d.provider),
        (d.tokens_in !== undefined || d.tokens_out !== undefined) && `${Number(d.tokens_in ?? 0).toLocaleString('en-US')} in / ${Number(d.tokens_out ?? 0).toLocaleString('en-US')} out tokens`,
      );
    case 'command':
      return join(text(d.command) ?? 'command', d.exit_code !== undefined && d.exit_code !== null && `exit ${text(d.exit_code)}`);
    case 'tool_call':
      return join(text(d.tool) ?? text(d.name) ?? 'tool call', text(d.status));
    case 'file_op':
      return join(text(d.operation) ?? 'file', text(d.path));
    case 'network':
      return join(d.allowed === false ? 'denied' : 'allowed', text(d.host) ?? text(d.url));
    case 'error':
      return text(d.message) ?? 'error';
    case 'lifecycle':
      return join(text(d.event), text(d.status), text(d.agent_type));
  }
  return '';
}
