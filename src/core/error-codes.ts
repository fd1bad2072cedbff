// The one catalogue of machine-readable error codes: every error body carries one of these next to its
// message, so a client can tell a 403 for scope from a 403 for a plan limit. A code is stable once
// published; add new ones here (the OpenAPI document lists this table).

export interface ErrorCodeEntry {
  status: number;
  meaning: string;
}

export const ERROR_CODES = {
  invalid_field: { status: 400, meaning: 'A field of the request (body, query or path) is missing, of the wrong type, out of range or unknown; `field` names it (`body.email`, `query.limit`).' },
  invalid_json: { status: 400, meaning: 'The body is not valid JSON, or is empty while the content-type says JSON.' },
  invalid_request: { status: 400, meaning: 'The request is well-formed but cannot be carried out as asked (git diff outside a repository, a file operation on the wrong kind of file).' },
  malformed_request: {
    status: 400,
    meaning: 'The HTTP request itself is malformed (request line, headers, no Host or more than one Host header); answered before routing, and the connection is closed.',
  },
  unauthorized: { status: 401, meaning: 'No credential, or an invalid, expired or revoked API key, session token or ticket.' },
  scope_denied: { status: 403, meaning: "The credential's scope does not cover this endpoint or this data." },
  plan_limit: {
    status: 403,
    meaning: "The account's plan does not allow more (concurrent sandboxes, or its compute hours for the period are used up): free something, upgrade, or wait for the next period.",
  },
  quota_exceeded: { status: 403, meaning: 'A fixed per-account or per-sandbox quota is reached (secrets, snapshots, snapshot storage, webhook endpoints): delete something first.' },
  csrf_failed: { status: 403, meaning: 'Dashboard: a request authenticated by the session cookie that changes something must carry the X-Paddock-CSRF header from GET /v1/dashboard/session.' },
  download_link_expired: { status: 403, meaning: 'The signed download link has expired: ask for a new one.' },
  run_ended: { status: 403, meaning: "The pipeline run has ended: the stage's state token no longer works (state gateway)." },
  download_link_invalid: { status: 403, meaning: 'The signed download link does not match its signature.' },
  not_found: { status: 404, meaning: "No such resource in this account (another account's resources are not found either), or no such route." },
  method_not_allowed: { status: 405, meaning: 'The HTTP method is not one this API serves (TRACE, CONNECT, OPTIONS, WebDAV or unknown methods); `Allow` lists those it does.' },
  request_timeout: { status: 408, meaning: 'The request head or body did not arrive in time; the connection is closed.' },
  conflict: { status: 409, meaning: "The resource's current state does not allow this (archived, already ended, changed meanwhile, still in use)." },
  already_exists: { status: 409, meaning: 'A resource with this unique name or email already exists.' },
  sandbox_not_running: { status: 409, meaning: 'The sandbox is not running (paused, stopped, destroyed or changing state) and this needs a running one.' },
  sandbox_state_conflict: {
    status: 409,
    meaning: "The sandbox's status does not allow this change (a destroyed sandbox cannot fail, an ended one cannot start): the lifecycle's edge table refuses it. The message names both statuses.",
  },
  process_not_found: { status: 404, meaning: 'No background process with this id in the sandbox (or it was among the oldest beyond the 256 records kept).' },
  node_not_found: { status: 404, meaning: 'Scale-out: no node registered with this id (GET /v1/admin/nodes lists them; the id is URL-encoded in the path).' },
  node_state_conflict: { status: 409, meaning: 'Scale-out: the node is lost or stopped; only an active or draining node can be drained or undrained (a node registers again when it starts).' },
  process_not_running: { status: 409, meaning: 'The background process has exited: it takes no more stdin or signals (its output stays readable).' },
  process_stdin_closed: { status: 409, meaning: "The background process's stdin was closed by an earlier `eof`." },
  process_limit: { status: 409, meaning: 'The sandbox already runs 64 background processes: wait for one to exit, or signal one.' },
  sandbox_not_paused: { status: 409, meaning: 'Only a paused sandbox can be resumed.' },
  snapshot_not_ready: { status: 409, meaning: 'The snapshot is still being taken, or failed.' },
  snapshot_on_other_node: {
    status: 409,
    meaning:
      "Scale-out: the sandbox to restore into runs on another node than the snapshot's archive, and the node holding the archive is not part of a cluster (no PADDOCK_CLUSTER_SECRET), so it cannot send the archive there.",
  },
  too_many_terminals: { status: 409, meaning: 'The sandbox already has the most terminal sessions it may have.' },
  stream_already_open: {
    status: 409,
    meaning: 'Agent delegation: the task already has an open stream (one connection per task); close it, or wait until it disconnects, then reconnect with Last-Event-ID.',
  },
  subscription_state_conflict: {
    status: 409,
    meaning: "Billing: the subscription's state does not allow this change (canceling the free plan, marking it past due); the message names both states.",
  },
  operator_only: { status: 403, meaning: "Billing: only an operator of this server (config's PADDOCK_OPERATORS, or the first account) may do this." },
  self_plan_change: { status: 403, meaning: 'Billing: nobody raises their own plan; an operator cannot approve their own plan request nor set their own plan.' },
  idempotency_conflict: { status: 422, meaning: 'This Idempotency-Key was used with another request (method, path or body).' },
  idempotency_in_progress: { status: 409, meaning: 'A request with this Idempotency-Key is still being processed: retry later.' },
  not_acceptable: { status: 406, meaning: 'The Accept header names no media type the endpoint answers (the task stream answers text/event-stream).' },
  payload_too_large: { status: 413, meaning: 'The request body (or the file asked for) is over its size limit.' },
  invalid_path: { status: 400, meaning: 'The path does not decode: a percent-encoded segment is not UTF-8 text.' },
  uri_too_long: { status: 414, meaning: 'A path parameter is longer than any valid value.' },
  unsupported_media_type: { status: 415, meaning: 'The content-type is not one the endpoint accepts (JSON endpoints take application/json).' },
  upgrade_required: { status: 426, meaning: 'The endpoint is a WebSocket: connect with Upgrade: websocket.' },
  rate_limited: { status: 429, meaning: 'Too many requests (per account, per client IP, or failed logins); `Retry-After` says when to retry.' },
  headers_too_large: { status: 431, meaning: 'The request head is over the size limit (16 KiB); the connection is closed.' },
  agent_not_found: { status: 404, meaning: 'Agent delegation: no such agent registration in this account (or, without a key, no such public agent).' },
  agent_disabled: { status: 403, meaning: 'Agent delegation: the agent is disabled and takes no tasks.' },
  task_not_found: { status: 404, meaning: 'Agent delegation: no such task in this account.' },
  skill_not_found: { status: 400, meaning: 'Agent delegation: the agent has no skill with this id.' },
  invalid_input: { status: 400, meaning: "Agent delegation: the task input does not match the skill's input_schema; `details.errors` lists where." },
  budget_exceeded: { status: 402, meaning: "Agent delegation: the task would exceed its cost limit (the agent's max_cost_per_task)." },
  webhook_signature_invalid: {
    status: 400,
    meaning: "Billing: the payment provider's webhook signature (Stripe-Signature) is missing, malformed, too old or does not match the body; nothing was changed.",
  },
  payment_provider_error: {
    status: 502,
    meaning: 'Billing: the payment provider (Stripe) refused the call or could not be reached; the message says which. Nothing was changed here: retry, or fix what it names.',
  },
  internal_error: { status: 500, meaning: 'An unexpected failure on the server; nothing about it is disclosed.' },
  shutting_down: { status: 503, meaning: 'The server is draining to stop: retry (another instance, or this one once restarted).' },
  dashboard_not_built: { status: 503, meaning: "The dashboard's files are missing on this server: run `npm run build` (`npm run up` does)." },
  runtime_unavailable: { status: 503, meaning: 'This server has no sandbox runtime for the operation.' },
  node_auth_failed: {
    status: 401,
    meaning: 'Scale-out: the request carries node-to-node headers whose signature is wrong or more than 30 s old (only nodes sharing PADDOCK_CLUSTER_SECRET can sign them).',
  },
  node_unreachable: { status: 502, meaning: 'Scale-out: the node that holds the sandbox (or any worker) could not be reached, or broke the connection before it answered: retry.' },
  node_full: { status: 503, meaning: 'Scale-out: this worker runs as many sandboxes as it may (PADDOCK_NODE_MAX_SANDBOXES); the API node tries another one.' },
  snapshot_unavailable: {
    status: 503,
    meaning:
      "Scale-out: the node whose disk holds the snapshot's archive is not alive (stopped, or declared lost); its archive can be downloaded, restored or deleted once that node is back. `Retry-After` says when to try again.",
  },
  cluster_full: { status: 503, meaning: 'Scale-out: no worker has room for the sandbox (or none runs its template); `Retry-After` says when to try again.' },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes whose status is `S`, so a typed error cannot carry a code of another status. */
export type ErrorCodeFor<S extends number> = { [C in ErrorCode]: (typeof ERROR_CODES)[C]['status'] extends S ? C : never }[ErrorCode];

export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

const GENERIC_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'scope_denied',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  426: 'upgrade_required',
  429: 'rate_limited',
  431: 'headers_too_large',
};

/** The code for a status that comes with nothing more specific (a framework's own 4xx). */
export function genericCodeFor(status: number): ErrorCode {
  return GENERIC_BY_STATUS[status] ?? (status < 500 ? 'invalid_request' : 'internal_error');
}

/** A markdown table of the catalogue, for the OpenAPI document. */
export function errorCodeTable(): string {
  const rows = ERROR_CODE_NAMES.map((code) => `| \`${code}\` | ${ERROR_CODES[code].status} | ${ERROR_CODES[code].meaning} |`);
  return ['| code | HTTP | meaning |', '|---|---|---|', ...rows].join('\n');
}
