// Whether a preview request may reach its sandbox: the sandbox running, the port's rate limit, the port
// listening and speaking HTTP, and on a protected port the password (a cookie, Basic auth, or the
// login form's POST). Shared by the per-request proxy and the relay's first request.
import type { LivePort, LivePorts } from './live-ports.js';
import type { Limiter } from '../core/rate-limit.js';
import type { PreviewTarget } from './host.js';
import { LOGIN_PATH, passwordPage } from './password-page.js';
import { basicAuthPassword, type PreviewProtection } from './protection.js';
import { nothingListening, refuse, type Refusal } from './refusals.js';
import type { RelayProof } from './relay-process.js';
import type { RequestHead } from '../core/net/request-head.js';

export interface AdmissionOptions {
  detector: LivePorts;
  protection: PreviewProtection;
  requests: Limiter;
  sandboxStatus(id: string): Promise<string | null>;
  /** Called for every admitted request. */
  noteActivity(sandboxId: string): void;
}

/** What admission reads of a request: Node's IncomingMessage, or a head the front door parsed. */
export interface AdmissionRequest {
  method?: string;
  url?: string;
  headers: RequestHead['headers'];
}

/** `proof`: on a protected port, the credential that admitted the request. */
export type Admission = { kind: 'proxy'; ip: string; live: LivePort; proof: RelayProof | null } | { kind: 'login'; live: LivePort } | { kind: 'refuse'; refusal: Refusal };

export async function admit(options: AdmissionOptions, request: AdmissionRequest, target: PreviewTarget): Promise<Admission> {
  const { detector, requests, protection } = options;
  const sandbox = detector.sandbox(target.sandboxId);
  if (!sandbox || !sandbox.ip) {
    const status = await options.sandboxStatus(target.sandboxId);
    if (status === null || status === 'destroyed') return refuse(404, 'No such preview', `There is no sandbox ${target.sandboxId}.`);
    return refuse(502, 'Sandbox not running', `Sandbox ${target.sandboxId} is ${status}, so nothing answers on port ${target.port}.`);
  }
  const decision = await requests.consume(target.label);
  if (!decision.allowed) {
    return refuse(429, 'Too many requests', `This preview allows ${decision.limit} requests per minute. Try again in ${decision.retryAfterSeconds} s.`, {
      'retry-after': String(decision.retryAfterSeconds),
    });
  }
  const live = detector.port(target.sandboxId, target.port);
  if (!live) return { kind: 'refuse', refusal: nothingListening(target) };
  if (live.protocol !== 'http') return refuse(502, 'Not an HTTP port', `Port ${target.port} of ${target.sandboxId} is listening but did not answer HTTP when it was detected.`);

  let proof: RelayProof | null = null;
  if (live.passwordHash) {
    const cookie = protection.validCookie(request, target, live.passwordHash);
    const password = cookie ? null : basicAuthPassword(request.headers.authorization);
    if (cookie) {
      proof = { kind: 'cookie', value: cookie.pair, until: cookie.expiresAt };
    } else if (password !== null) {
      const check = await protection.check(target, live.passwordHash, password);
      if (check.kind === 'throttled') return refuse(429, 'Too many wrong passwords', `Try again in ${check.retryAfterSeconds} s.`, { 'retry-after': String(check.retryAfterSeconds) });
      if (check.kind === 'wrong') return refuse(401, 'Wrong password', 'The password sent with Basic auth is wrong.', { 'www-authenticate': 'Basic realm="Paddock preview", charset="UTF-8"' });
      proof = { kind: 'basic', value: request.headers.authorization!, until: 0 };
    } else if (request.method === 'POST' && request.url?.split('?')[0] === LOGIN_PATH) {
      return { kind: 'login', live };
    } else {
      return { kind: 'refuse', refusal: { status: 401, html: passwordPage({ label: target.label, next: request.url ?? '/', wrongPassword: false }) } };
    }
  }
  options.noteActivity(target.sandboxId);
  return { kind: 'proxy', ip: sandbox.ip, live, proof };
}
