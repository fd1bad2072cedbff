// Callback URLs are checked at creation with the outbound guard's static rules (a URL, http(s) as the
// server allows, no credentials, no literal non-public address); the resolved address is checked again
// at every delivery.
import { Invalid } from '../../core/errors.js';
import { checkOutboundUrl, OutboundRefused, type OutboundPolicy } from '../../core/net/outbound-guard.js';

export function validateCallbackUrls(input: { budget?: number; on_complete?: string; on_budget_exceeded?: string }, policy: OutboundPolicy): void {
  for (const field of ['on_complete', 'on_budget_exceeded'] as const) {
    const url = input[field];
    if (url === undefined) continue;
    try {
      checkOutboundUrl(url, policy);
    } catch (error) {
      if (error instanceof OutboundRefused) throw new Invalid(`body.${field}`, error.message);
      throw error;
    }
  }
  if (input.on_budget_exceeded !== undefined && input.budget === undefined) throw new Invalid('body.on_budget_exceeded', 'needs body.budget');
}
