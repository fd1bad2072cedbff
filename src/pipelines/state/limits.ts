// The spec's limits on a run's state.
export const MAX_KEY_CHARS = 256;
export const MAX_VALUE_BYTES = 1024 * 1024;
export const MAX_ENTRIES_PER_RUN = 100;
export const MAX_TOTAL_BYTES_PER_RUN = 10 * 1024 * 1024;
export const DEFAULT_TTL_SECONDS = 604_800;
export const MAX_TTL_SECONDS = 2_592_000;
