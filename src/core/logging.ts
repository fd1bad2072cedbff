// Structured JSON logs (pino). Credentials never reach a log line: the headers that carry them are
// redacted, and request bodies are never logged. They go to stderr: stdout is for what a person reads
// (the listening line, the first account's key).
import pino, { type DestinationStream, type LoggerOptions } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.api_key',
  '*.key',
];

export function loggerOptions(level: string, stream?: DestinationStream): LoggerOptions & { stream?: DestinationStream } {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: { level: (label) => ({ level: label }) },
    stream: stream ?? pino.destination({ fd: 2, sync: false }),
  };
}
