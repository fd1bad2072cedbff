// The registry's limits, in one place: the service enforces them, the schemas and docs state them.
export const MAX_AGENTS_PER_ACCOUNT = 100;
export const MAX_SKILLS_PER_AGENT = 20;
/** Serialized JSON size of one skill's input_schema. */
export const MAX_INPUT_SCHEMA_BYTES = 64 * 1024;
/** Nesting of objects and arrays in one input_schema (deeper would exhaust the stack of the compiler). */
export const MAX_INPUT_SCHEMA_DEPTH = 64;
export const DEFAULT_RATE_LIMIT_RPM = 60;
export const MAX_RATE_LIMIT_RPM = 10_000;
/** USD. */
export const MAX_COST_PER_TASK_USD = 10_000;
/** Discovery answers at most this many cards (oldest registrations first). */
export const MAX_DISCOVERY_CARDS = 500;
