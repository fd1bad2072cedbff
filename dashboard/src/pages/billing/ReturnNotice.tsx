// Where the server's billing links land: `?request=<id>` (a manual plan request) shows that request's
// state, `?checkout=success|canceled` (back from Stripe Checkout) says how checkout ended.
import type { Subscription } from './types';

export function ReturnNotice({ params, subscription }: { params: URLSearchParams; subscription: Subscription }) {
  const requestId = params.get('request');
  const checkout = params.get('checkout');
  if (checkout === 'success') {
    return (
      <p className="panel notice" role="status">
        Checkout finished. Your plan changes as soon as the payment is confirmed; this page shows it when it does.
      </p>
    );
  }
  if (checkout === 'canceled') {
    return (
      <p className="panel notice notice-warn" role="status">
        Checkout was canceled: nothing was charged and your plan is unchanged.
      </p>
    );
  }
  if (!requestId) return null;
  const pending = subscription.pending_request;
  if (pending?.id === requestId) {
    return (
      <p className="panel notice" role="status" data-testid="request-notice">
        Your request for the <strong>{pending.plan}</strong> plan is waiting for an operator of this server to approve it.
      </p>
    );
  }
  return (
    <p className="panel notice" role="status" data-testid="request-notice">
      Plan request <code>{requestId}</code> is no longer waiting: you are on the <strong>{subscription.plan}</strong> plan.
    </p>
  );
}
