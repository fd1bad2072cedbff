// Sends a channel's JSON body over HTTP(S) through the outbound guard and turns the outcome into the
// outbox's terms: a 2xx is delivered; any other answer or a network error is retried; a refused target
// fails at once.
import { OutboundRefused, type OutboundPolicy } from '../net/outbound-guard.js';
import { postOutbound } from '../net/outbound-http.js';
import { DeliveryFailed, type DeliveryResult } from './outbox.js';

export async function postJsonDelivery(url: string, body: string, options: { policy: OutboundPolicy; timeoutMs: number; headers?: Record<string, string> }): Promise<DeliveryResult> {
  let response;
  try {
    response = await postOutbound(url, body, options);
  } catch (error) {
    if (error instanceof OutboundRefused) throw new DeliveryFailed(`refused: the target URL ${error.message}`, { permanent: true });
    throw new DeliveryFailed((error as Error).message);
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return { statusCode: response.statusCode, responseExcerpt: response.bodyExcerpt };
  const redirect = response.statusCode >= 300 && response.statusCode < 400 ? ' (redirects are not followed)' : '';
  // 410 Gone is how chat services say a webhook was deleted: retrying cannot succeed.
  throw new DeliveryFailed(`the receiver answered HTTP ${response.statusCode}${redirect}`, {
    statusCode: response.statusCode,
    responseExcerpt: response.bodyExcerpt,
    permanent: response.statusCode === 410,
  });
}
