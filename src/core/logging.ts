// Structured JSON logs (pino). Credentials never reach a log line: the headers that carry them are
// redacted, and request bodies are never logged. They go to stderr: stdout is for what a person reads
// (the listening line, the first account's key).
import pino, { type DestinationStream, type LoggerOptions } from 'pino';

export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'res.headers["set-cookie"]', '*.password', '*.token', '*.api_key', '*.key'];

/** Single-use terminal tickets travel in the URL; keep them out of request log lines too. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]ticket=)[^&]*/g, '$1[redacted]');
}

export function loggerOptions(level: string, stream?: DestinationStream): LoggerOptions & { stream?: DestinationStream } {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: { level: (label) => ({ level: label }) },
    serializers: {
      req: (req: { method: string; url: string; hostname?: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), host: req.hostname, remote_address: req.ip }),
    },
    stream: stream ?? pino.destination({ fd: 2, sync: false }),
  };
}

/**
 * What a component logs through: structured fields first, then the message (pino's order). `app.log`
 * is one; tests pass a quiet one. Every service, worker and task takes this type, not its own.
 */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
