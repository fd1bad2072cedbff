// A local HTTP server standing in for Stripe's API in the Stripe provider's tests only (the SDK is
// pointed at it with PADDOCK_STRIPE_API_URL). It records every request the SDK makes and answers
// Stripe-shaped JSON for the calls Paddock makes: customers, Checkout Sessions, Customer Portal
// sessions, subscriptions (retrieve, update). Subscriptions are put in place by the test, as Stripe
// would have made them after a checkout. Also signs events the way Stripe does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The form-encoded body, flat: `metadata[account_id]`, `line_items[0][price]`. */
  body: Record<string, string>;
  idempotencyKey: string | null;
  authorization: string | null;
}

export interface SubscriptionShape {
  id: string;
  customer: string;
  price: string;
  status?: string;
  periodStart: number;
  periodEnd: number;
  cancelAtPeriodEnd?: boolean;
  metadata?: Record<string, string>;
}

export function stripeSubscription(shape: SubscriptionShape) {
  return {
    id: shape.id,
    object: 'subscription',
    customer: shape.customer,
    status: shape.status ?? 'active',
    cancel_at_period_end: shape.cancelAtPeriodEnd ?? false,
    cancel_at: shape.cancelAtPeriodEnd ? shape.periodEnd : null,
    metadata: shape.metadata ?? {},
    items: {
      object: 'list',
      data: [
        {
          id: `si_${shape.id}`,
          object: 'subscription_item',
          current_period_start: shape.periodStart,
          current_period_end: shape.periodEnd,
          price: { id: shape.price, object: 'price' },
          quantity: 1,
          subscription: shape.id,
        },
      ],
    },
  };
}

export class StripeApiStandIn {
  readonly requests: RecordedRequest[] = [];
  readonly subscriptions = new Map<string, ReturnType<typeof stripeSubscription>>();
  private readonly server = http.createServer((request, response) => void this.answer(request, response));
  private readonly customersByKey = new Map<string, unknown>();
  private failures: { status: number; type: string; message: string }[] = [];
  private counter = 0;
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next request (and its SDK retries) fails with this status and a Stripe error body. */
  failNext(status: number, message: string, times = 1): void {
    const type = status >= 500 ? 'api_error' : 'invalid_request_error';
    for (let i = 0; i < times; i++) this.failures.push({ status, type, message });
  }

  to(method: string, pathPrefix: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method && request.path.startsWith(pathPrefix));
  }

  private nextId(prefix: string): string {
    return `${prefix}_${Date.now().toString(36)}${++this.counter}`;
  }

  private async answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const body = Object.fromEntries(new URLSearchParams(request.method === 'GET' ? url.search : raw));
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: url.pathname,
      body,
      idempotencyKey: (request.headers['idempotency-key'] as string | undefined) ?? null,
      authorization: request.headers.authorization ?? null,
    };
    this.requests.push(recorded);
    const send = (status: number, json: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': this.nextId('req') });
      response.end(JSON.stringify(json));
    };
    const failure = this.failures.shift();
    if (failure) return send(failure.status, { error: { type: failure.type, message: failure.message } });
    const metadata = (prefix: string) =>
      Object.fromEntries(
        Object.entries(body)
          .filter(([key]) => key.startsWith(`${prefix}[`))
          .map(([key, value]) => [key.slice(prefix.length + 1, -1), value]),
      );

    if (request.method === 'POST' && url.pathname === '/v1/customers') {
      const existing = recorded.idempotencyKey ? this.customersByKey.get(recorded.idempotencyKey) : undefined;
      if (existing) return send(200, existing);
      const customer = { id: this.nextId('cus'), object: 'customer', email: body.email ?? null, name: body.name ?? null, metadata: metadata('metadata') };
      if (recorded.idempotencyKey) this.customersByKey.set(recorded.idempotencyKey, customer);
      return send(200, customer);
    }
    if (request.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const id = this.nextId('cs_test');
      return send(200, {
        id,
        object: 'checkout.session',
        mode: body.mode,
        customer: body.customer ?? null,
        client_reference_id: body.client_reference_id ?? null,
        metadata: metadata('metadata'),
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        status: 'open',
        subscription: null,
        url: `https://checkout.stripe.test/c/pay/${id}`,
      });
    }
    if (request.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
      const id = this.nextId('bps');
      return send(200, { id, object: 'billing_portal.session', customer: body.customer, return_url: body.return_url ?? null, url: `https://billing.stripe.test/p/session/${id}` });
    }
    const subscriptionPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
    if (subscriptionPath) {
      const subscription = this.subscriptions.get(subscriptionPath[1]);
      if (!subscription) return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such subscription: '${subscriptionPath[1]}'` } });
      if (request.method === 'POST' && body.cancel_at_period_end !== undefined) {
        subscription.cancel_at_period_end = body.cancel_at_period_end === 'true';
        subscription.cancel_at = subscription.cancel_at_period_end ? subscription.items.data[0].current_period_end : null;
      }
      return send(200, subscription);
    }
    send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${request.method}: ${url.pathname})` } });
  }
}

/** An event as Stripe sends it, and its Stripe-Signature header made by the stripe package's own helper. */
export function signedEvent(secret: string, type: string, object: unknown, id = `evt_${Math.random().toString(36).slice(2)}`) {
  const payload = JSON.stringify({ id, object: 'event', type, api_version: Stripe.API_VERSION, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } });
  return { id, payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
}
