// The Paddock client: one object holding the connection settings, with a property per area of the API.
import { Http, type ClientOptions } from './core/http.js';
import { Admin } from './admin.js';
import { Sandboxes } from './sandboxes/sandboxes.js';
import { Agents } from './a2a/agents.js';
import { Tasks } from './a2a/tasks.js';
import { Alerts } from './alerts.js';
import { Billing } from './billing.js';
import { Evals } from './evals.js';
import { Keys } from './keys.js';
import { Pipelines } from './pipelines/pipelines.js';
import { Secrets } from './secrets.js';
import { Sessions } from './sessions/sessions.js';
import { SnapshotsById } from './snapshots.js';
import { Webhooks } from './webhooks.js';

export class Paddock {
  /** The JSON/streaming core every area uses; also there for routes the SDK does not wrap yet. */
  readonly http: Http;
  /** Sandboxes: create, connect, list; each `Sandbox` has commands, processes, files, terminal, ports, snapshots. */
  readonly sandboxes: Sandboxes;
  /** A snapshot by its id: get, restore into a sandbox, delete, download link (create and list: `sandbox.snapshots`). */
  readonly snapshots: SnapshotsById;
  /** Pipelines and their runs: create, run, waitForRun, approve/reject, logs, state. */
  readonly pipelines: Pipelines;
  /** Eval scenarios and suites: CRUD, run, results. */
  readonly evals: Evals;
  /** Agent sessions: read, replay, summary, and `ingest` (batched event sending). */
  readonly sessions: Sessions;
  /** Alerts, their rules, notification channels and notifications. */
  readonly alerts: Alerts;
  /** Subscription, usage, checkout, portal, cancel, plan requests. */
  readonly billing: Billing;
  /** A2A agents: register, skills, cards. */
  readonly agents: Agents;
  /** Tasks delegated to A2A agents: send, stream, respond, cancel. */
  readonly tasks: Tasks;
  /** The account's API keys. */
  readonly keys: Keys;
  readonly secrets: Secrets;
  readonly webhooks: Webhooks;
  /** Operators: the nodes of a cluster (list, drain, undrain). */
  readonly admin: Admin;

  constructor(options: ClientOptions = {}) {
    this.http = new Http(options);
    this.sandboxes = new Sandboxes(this.http);
    this.snapshots = new SnapshotsById(this.http);
    this.pipelines = new Pipelines(this.http);
    this.evals = new Evals(this.http);
    this.sessions = new Sessions(this.http);
    this.alerts = new Alerts(this.http);
    this.billing = new Billing(this.http);
    this.agents = new Agents(this.http);
    this.tasks = new Tasks(this.http);
    this.keys = new Keys(this.http);
    this.secrets = new Secrets(this.http);
    this.webhooks = new Webhooks(this.http);
    this.admin = new Admin(this.http);
  }
}
