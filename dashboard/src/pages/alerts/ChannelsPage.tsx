// /alerts/channels: where alerts are delivered besides the in-app inbox (GET/PUT /v1/notifications/config).
// An enabled channel needs its target; the server checks addresses and URLs and answers which field is wrong.
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { AlertTabs } from './AlertTabs';
import type { NotificationConfig } from './types';
import './alerts.css';

export default function ChannelsPage() {
  const config = useApi((signal) => api.get<NotificationConfig>('/v1/notifications/config', signal), []);
  return (
    <>
      <PageTitle title="Notification channels" />
      <AlertTabs />
      <Loaded state={config}>{(current) => <ChannelsForm config={current} onSaved={config.setData} />}</Loaded>
    </>
  );
}

interface Draft {
  emailEnabled: boolean;
  email: string;
  chatAEnabled: boolean;
  chatA: string;
  chatBEnabled: boolean;
  chatB: string;
  webhookEnabled: boolean;
  webhook: string;
}

function draftOf(config: NotificationConfig): Draft {
  const c = config.channels;
  return {
    emailEnabled: c.email.enabled,
    email: c.email.address ?? '',
    chatAEnabled: c.chat_a.enabled,
    chatA: c.chat_a.webhook_url ?? '',
    chatBEnabled: c.chat_b.enabled,
    chatB: c.chat_b.webhook_url ?? '',
    webhookEnabled: c.webhook.enabled,
    webhook: c.webhook.url ?? '',
  };
}

const orNull = (value: string) => (value.trim() === '' ? null : value.trim());

function ChannelsForm({ config, onSaved }: { config: NotificationConfig; onSaved(config: NotificationConfig): void }) {
  const [draft, setDraft] = useState(draftOf(config));
  const [status, setStatus] = useState<{ busy: boolean; error: string | null; done: string | null }>({ busy: false, error: null, done: null });
  const [showSecret, setShowSecret] = useState(false);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft({ ...draft, [key]: value });

  async function send(body: unknown, done: string) {
    setStatus({ busy: true, error: null, done: null });
    try {
      const saved = await api.put<NotificationConfig>('/v1/notifications/config', body);
      setStatus({ busy: false, error: null, done });
      onSaved(saved);
    } catch (caught) {
      setStatus({ busy: false, error: caught instanceof ApiError ? caught.message : String(caught), done: null });
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void send(
      {
        channels: {
          email: { enabled: draft.emailEnabled, address: orNull(draft.email) },
          chat_a: { enabled: draft.chatAEnabled, webhook_url: orNull(draft.chatA) },
          chat_b: { enabled: draft.chatBEnabled, webhook_url: orNull(draft.chatB) },
          webhook: { enabled: draft.webhookEnabled, url: orNull(draft.webhook) },
        },
      },
      'Saved',
    );
  }

  const secret = config.channels.webhook.secret;
  return (
    <form className="form channels" onSubmit={submit}>
      <fieldset>
        <legend>Email</legend>
        <label className="check">
          <input type="checkbox" checked={draft.emailEnabled} onChange={(e) => set('emailEnabled', e.target.checked)} /> Send alerts by email
        </label>
        <label>
          Email address
          <input type="email" value={draft.email} onChange={(e) => set('email', e.target.value)} placeholder="oncall@example.com" autoComplete="email" />
        </label>
      </fieldset>
      <fieldset>
        <legend>Chat A (Slack-style incoming webhook)</legend>
        <label className="check">
          <input type="checkbox" checked={draft.chatAEnabled} onChange={(e) => set('chatAEnabled', e.target.checked)} /> Send alerts to chat A
        </label>
        <label>
          Chat A webhook URL
          <input type="url" value={draft.chatA} onChange={(e) => set('chatA', e.target.value)} placeholder="https://hooks.slack.com/services/…" />
        </label>
      </fieldset>
      <fieldset>
        <legend>Chat B (Discord-style webhook)</legend>
        <label className="check">
          <input type="checkbox" checked={draft.chatBEnabled} onChange={(e) => set('chatBEnabled', e.target.checked)} /> Send alerts to chat B
        </label>
        <label>
          Chat B webhook URL
          <input type="url" value={draft.chatB} onChange={(e) => set('chatB', e.target.value)} placeholder="https://discord.com/api/webhooks/…" />
        </label>
      </fieldset>
      <fieldset>
        <legend>Webhook (Standard Webhooks, signed)</legend>
        <label className="check">
          <input type="checkbox" checked={draft.webhookEnabled} onChange={(e) => set('webhookEnabled', e.target.checked)} /> Send alerts to a webhook
        </label>
        <label>
          Webhook URL
          <input type="url" value={draft.webhook} onChange={(e) => set('webhook', e.target.value)} placeholder="https://ops.example.com/paddock" />
        </label>
        <div className="secret">
          <span className="muted">Signing secret</span>
          <code data-testid="webhook-secret">{showSecret ? secret : `${secret.slice(0, 10)}…`}</code>
          <button type="button" onClick={() => setShowSecret(!showSecret)} aria-pressed={showSecret}>
            {showSecret ? 'Hide' : 'Show'}
          </button>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(secret)}>
            Copy secret
          </button>
          <button type="button" disabled={status.busy} onClick={() => void send({ channels: { webhook: { rotate_secret: true } } }, 'Secret rotated')}>
            Rotate secret
          </button>
        </div>
      </fieldset>
      {status.error && (
        <p className="form-error" role="alert">
          {status.error}
        </p>
      )}
      <div className="form-row">
        <button type="submit" className="primary" disabled={status.busy}>
          {status.busy ? 'Saving…' : 'Save channels'}
        </button>
        {status.done && (
          <span role="status" className="muted">
            {status.done}
          </span>
        )}
        <span className="muted">
          Last changed <TimeAgo iso={config.updated_at} />
        </span>
      </div>
    </form>
  );
}
