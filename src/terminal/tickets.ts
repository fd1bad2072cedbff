// Single-use, short-lived terminal tickets: a browser cannot set an Authorization header on a WebSocket,
// so it trades its API key for a ticket (over a normal authenticated POST) and puts only that in the URL.
// Tickets live in the memory of the process that hosts the sandbox's terminals.
import { randomBytes } from 'node:crypto';
import type { Principal } from '../core/access.js';

export const TICKET_TTL_SECONDS = 60;

interface Ticket {
  principal: Principal;
  sandboxId: string;
  expiresAtMs: number;
}

export class TerminalTickets {
  private readonly tickets = new Map<string, Ticket>();

  constructor(private readonly ttlSeconds = TICKET_TTL_SECONDS) {}

  issue(principal: Principal, sandboxId: string): { ticket: string; expiresAt: Date } {
    this.sweep();
    const ticket = `tkt_${randomBytes(32).toString('base64url')}`;
    const expiresAtMs = Date.now() + this.ttlSeconds * 1000;
    this.tickets.set(ticket, { principal, sandboxId, expiresAtMs });
    return { ticket, expiresAt: new Date(expiresAtMs) };
  }

  /** Spends the ticket whatever the outcome, so a ticket is tried at most once. */
  redeem(ticket: string, sandboxId: string | undefined): Principal | null {
    const found = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!found || found.expiresAtMs <= Date.now() || found.sandboxId !== sandboxId) return null;
    return found.principal;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [ticket, { expiresAtMs }] of this.tickets) if (expiresAtMs <= now) this.tickets.delete(ticket);
  }
}
