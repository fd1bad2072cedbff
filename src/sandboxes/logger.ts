// What the sandbox feature logs through (pino's shape; Fastify's logger satisfies it).
export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
