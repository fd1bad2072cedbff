// One alert rule, edited in place: fractions of a budget or quota are shown as percentages, trust
// thresholds as scores; Save sends only what changed.
import { useState } from 'react';
import { api, ApiError } from '../../api/client';
import { CHANNEL_LABELS, CHANNELS, type AlertRule, type Channel } from './types';

const isFraction = (rule: AlertRule) => rule.threshold_unit === 'budget_fraction' || rule.threshold_unit === 'quota_fraction';

function shownThreshold(rule: AlertRule): string {
  if (rule.threshold === null) return '';
  return String(isFraction(rule) ? Math.round(rule.threshold * 10_000) / 100 : rule.threshold);
}

export function RuleRow({ rule, onSaved }: { rule: AlertRule; onSaved(rule: AlertRule): void }) {
  const [enabled, setEnabled] = useState(rule.enabled);
  const [threshold, setThreshold] = useState(shownThreshold(rule));
  const [channels, setChannels] = useState<Channel[]>(rule.channels);
  const [state, setState] = useState<{ saving: boolean; error: string | null; saved: boolean }>({ saving: false, error: null, saved: false });
  const unit = rule.threshold_unit === 'trust_score' ? 'score' : isFraction(rule) ? '%' : null;

  async function save() {
    const body: Record<string, unknown> = {};
    if (enabled !== rule.enabled) body.enabled = enabled;
    if (unit && threshold !== shownThreshold(rule)) body.threshold = isFraction(rule) ? Number(threshold) / 100 : Number(threshold);
    if (channels.join() !== rule.channels.join()) body.channels = CHANNELS.filter((c) => channels.includes(c));
    if (Object.keys(body).length === 0) return;
    setState({ saving: true, error: null, saved: false });
    try {
      const saved = await api.put<AlertRule>(`/v1/alerts/rules/${encodeURIComponent(rule.id)}`, body);
      onSaved(saved);
      setChannels(saved.channels);
      setThreshold(shownThreshold(saved));
      setState({ saving: false, error: null, saved: true });
    } catch (caught) {
      setState({ saving: false, error: caught instanceof ApiError ? caught.message : String(caught), saved: false });
    }
  }

  const errorId = `rule-error-${rule.id}`;
  return (
    <tr data-testid="rule-row" data-rule-type={rule.type}>
      <th scope="row">{rule.type}</th>
      <td>
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} aria-label={`${rule.type} enabled`} />
      </td>
      <td>
        {unit ? (
          <span className="threshold">
            <input
              type="number"
              inputMode="decimal"
              min={0}
              max={100}
              step="any"
              value={threshold}
              onChange={(event) => setThreshold(event.target.value)}
              aria-label={`${rule.type} threshold (${unit === '%' ? 'percent' : 'trust score'})`}
              aria-describedby={state.error ? errorId : undefined}
            />
            <span className="muted">{unit === '%' ? '%' : 'below'}</span>
          </span>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      {CHANNELS.map((channel) => (
        <td key={channel}>
          <input
            type="checkbox"
            checked={channels.includes(channel)}
            onChange={(event) => setChannels(event.target.checked ? [...channels, channel] : channels.filter((c) => c !== channel))}
            aria-label={`${rule.type} via ${CHANNEL_LABELS[channel]}`}
          />
        </td>
      ))}
      <td>
        <button type="button" onClick={() => void save()} disabled={state.saving} aria-label={`Save ${rule.type}`}>
          {state.saving ? 'Saving…' : 'Save'}
        </button>
        {state.saved && (
          <span className="muted" role="status">
            {' '}
            Saved
          </span>
        )}
        {state.error && (
          <p className="form-error" id={errorId} role="alert">
            {state.error}
          </p>
        )}
      </td>
    </tr>
  );
}
