// The Stripe SDK client as Paddock configures it (PADDOCK_STRIPE_API_URL points it at a Stripe-compatible
// API), and the one place Stripe's failures become Paddock's: a 502 naming Stripe, never a crash.
import Stripe from 'stripe';
import type { StripeConfig } from '../../../config.js';
import { HttpError } from '../../../core/errors.js';

export function createStripeClient(config: Pick<StripeConfig, 'secretKey' | 'apiUrl'>): Stripe {
  const api = config.apiUrl ? new URL(config.apiUrl) : null;
  return new Stripe(config.secretKey, {
    // Requests to Stripe sit inside a user's request: a slow Stripe answers a 502 rather than holding the caller.
    timeout: 20_000,
    maxNetworkRetries: 1,
    telemetry: false,
    ...(api ? { host: api.hostname, port: api.port || (api.protocol === 'https:' ? 443 : 80), protocol: api.protocol === 'https:' ? 'https' : 'http' } : {}),
  });
}

/** Stripe refused the call or could not be reached. */
export class PaymentProviderError extends HttpError<502> {
  constructor(what: string, cause: unknown) {
    super(502, `Stripe ${describe(cause)} while ${what}: nothing was changed`, 'payment_provider_error');
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Stripe.errors.StripeConnectionError) return 'could not be reached';
  if (cause instanceof Stripe.errors.StripeError) {
    const status = cause.statusCode ? ` (HTTP ${cause.statusCode})` : '';
    return `answered an error${status}: ${cause.message}`;
  }
  return `failed: ${cause instanceof Error ? cause.message : String(cause)}`;
}

/** Runs one Stripe call; its failure becomes a PaymentProviderError naming what was being done. */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new PaymentProviderError(what, error);
  }
}
