// What a delivery handler receives and answers; handlers live with the feature that owns the kind.

export interface Delivery {
  id: string;
  kind: string;
  accountId: string | null;
  sourceId: string | null;
  target: string;
  payload: unknown;
  /** 1 for the first attempt. */
  attempt: number;
  /** The handler must give up by then; the worker counts the attempt failed after it anyway. */
  timeoutMs: number;
}

export interface DeliveryResult {
  statusCode?: number;
  responseExcerpt?: string;
}

/** Thrown by a handler: the attempt failed. `permanent` stops retries (a refused target, a bad address). */
export class DeliveryFailed extends Error {
  constructor(
    message: string,
    readonly options: { permanent?: boolean; statusCode?: number; responseExcerpt?: string } = {},
  ) {
    super(message);
  }
}

export type DeliveryHandler = (delivery: Delivery) => Promise<DeliveryResult>;

export interface OutboxSettings {
  pollIntervalMs: number;
  backoffBaseMs: number;
  maxAttempts: number;
  attemptTimeoutMs: number;
  /** Finished rows older than this are deleted with their attempts; 0 keeps them forever. */
  retentionDays: number;
}
