// paddock.webhooks: endpoints that receive the account's events, signed, with their deliveries.
import type { Http } from './core/http.js';
import { segment } from './core/paths.js';
import type { BodyOf, QueryOf, Schemas } from './core/types.js';

export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type CreateWebhookParams = BodyOf<'/v1/webhooks', 'post'>;
export type UpdateWebhookParams = BodyOf<'/v1/webhooks/{id}', 'patch'>;

export class Webhooks {
  constructor(private readonly http: Http) {}

  /** Subscribes a URL; the answer holds the signing `secret`, this once. */
  create(params: CreateWebhookParams): Promise<WebhookEndpoint> {
    return this.http.request('POST', '/v1/webhooks', { body: params });
  }

  list(): Promise<WebhookEndpoint[]> {
    return this.http.request('GET', '/v1/webhooks');
  }

  get(endpointId: string): Promise<WebhookEndpoint> {
    return this.http.request('GET', `/v1/webhooks/${segment(endpointId)}`);
  }

  /** Changes the fields sent (`rotate_secret: true` answers a new secret, once). */
  update(endpointId: string, params: UpdateWebhookParams): Promise<WebhookEndpoint> {
    return this.http.request('PATCH', `/v1/webhooks/${segment(endpointId)}`, { body: params });
  }

  delete(endpointId: string): Promise<void> {
    return this.http.request('DELETE', `/v1/webhooks/${segment(endpointId)}`);
  }

  /** Queues a `webhook.test` delivery to the endpoint. */
  test(endpointId: string): Promise<WebhookDelivery> {
    return this.http.request('POST', `/v1/webhooks/${segment(endpointId)}/test`);
  }

  /** Recent deliveries, newest first. */
  deliveries(endpointId: string, query: QueryOf<'/v1/webhooks/{id}/deliveries', 'get'> = {}): Promise<WebhookDelivery[]> {
    return this.http.request('GET', `/v1/webhooks/${segment(endpointId)}/deliveries`, { query });
  }
}
