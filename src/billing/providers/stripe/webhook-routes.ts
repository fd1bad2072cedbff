// POST /v1/billing/stripe/webhook: Stripe's events, verified against the raw body's signature. Its own
// encapsulated plugin, so only this route takes application/json as bytes (the signature covers the
// exact bytes Stripe sent). Each event is claimed by id before it is handled and marked processed
// after: a redelivery is answered 200 without being handled again.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import Stripe from 'stripe';
import { ErrorResponse } from '../../../core/error-body.js';
import { HttpError } from '../../../core/errors.js';
import type { Logger } from '../../../core/logging.js';
import type { StripeEventStore } from './event-store.js';
import { HANDLED_EVENTS, type StripeEventHandler } from './webhook-events.js';

export const STRIPE_WEBHOOK_PATH = '/v1/billing/stripe/webhook';

export interface StripeWebhookOptions {
  webhookSecret: string;
  events: StripeEventStore;
  handle: StripeEventHandler;
  log: Logger;
}

class BadSignature extends HttpError<400> {
  constructor(why: string) {
    super(400, `Stripe-Signature ${why}: the event was not taken`, 'webhook_signature_invalid');
  }
}

const Received = Type.Object({
  received: Type.Literal(true),
  /** `handled`, or `duplicate` for an event id already taken. */
  outcome: Type.Union([Type.Literal('handled'), Type.Literal('duplicate')]),
});

export function stripeWebhookRoutes(options: StripeWebhookOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.post(STRIPE_WEBHOOK_PATH, {
      // Open (Stripe holds no key), on the per-IP limit of system routes (1200 a minute by default): Stripe
      // sends from a few addresses and a busy renewal day bursts past the 100 a minute of other open routes.
      config: { access: { kind: 'open', limit: 'system' } },
      schema: {
        tags: ['billing'],
        summary: 'Receive a Stripe webhook event',
        description:
          `Served when PADDOCK_BILLING_PROVIDER=stripe; the endpoint to give Stripe. The body is the event as Stripe sent it, verified with the \`Stripe-Signature\` header and PADDOCK_STRIPE_WEBHOOK_SECRET (a missing, bad or over 5 minutes old signature is a 400 \`webhook_signature_invalid\` and changes nothing). ` +
          `Handled: ${HANDLED_EVENTS.map((type) => `\`${type}\``).join(', ')}; other events are answered 200 and ignored. An event id already taken answers 200 with \`outcome: duplicate\` and changes nothing; ` +
          'one another delivery is handling right now answers 409 (Stripe retries). A failure while handling (Stripe unreachable) answers 5xx and Stripe delivers the event again. ' +
          'Open: no key, limited per client IP (PADDOCK_RATE_LIMIT_SYSTEM).',
        response: { 200: Received, 400: ErrorResponse, 409: ErrorResponse, 429: ErrorResponse, 502: ErrorResponse },
      },
      handler: async (request) => {
        const signature = request.headers['stripe-signature'];
        if (!signature) throw new BadSignature('header is missing');
        if (!Buffer.isBuffer(request.body)) throw new BadSignature('covers no body: send the event as application/json');
        let event: Stripe.Event;
        try {
          event = Stripe.webhooks.constructEvent(request.body, signature, options.webhookSecret);
        } catch (error) {
          throw new BadSignature(`does not verify (${error instanceof Error ? error.message.split('\n')[0] : 'invalid'})`);
        }

        const claim = await options.events.claim(event.id, event.type);
        if (claim === 'processed') return { received: true, outcome: 'duplicate' } as const;
        if (claim === 'in_progress') throw new HttpError(409, `Stripe event ${event.id} is being handled by another delivery: retry later`, 'conflict');
        let accountId: string | null;
        try {
          accountId = await options.handle(event);
        } catch (error) {
          await options.events.release(event.id);
          options.log.error({ err: error, eventId: event.id, type: event.type }, 'stripe event failed: released for Stripe to deliver again');
          throw error;
        }
        await options.events.markProcessed(event.id, accountId);
        return { received: true, outcome: 'handled' } as const;
      },
    });
  };
}
