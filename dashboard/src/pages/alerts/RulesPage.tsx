// /alerts/rules: one rule per alert type: on or off, its threshold, and the channels it delivers to.
import { api } from '../../api/client';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { AlertTabs } from './AlertTabs';
import { RuleRow } from './RuleRow';
import { CHANNEL_LABELS, CHANNELS, type AlertRule } from './types';
import './alerts.css';

export default function RulesPage() {
  const rules = useApi((signal) => api.get<AlertRule[]>('/v1/alerts/rules', signal), [], { pollMs: 60_000 });
  return (
    <>
      <PageTitle title="Alert rules" />
      <AlertTabs />
      <p className="muted">A channel delivers only once it is enabled under Channels; every alert also makes an in-app notification.</p>
      <Loaded state={rules}>
        {(rows) => (
          <div className="table-wrap">
            <table className="rules">
              <thead>
                <tr>
                  <th scope="col">Alert type</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Threshold</th>
                  {CHANNELS.map((channel) => (
                    <th scope="col" key={channel}>
                      {CHANNEL_LABELS[channel]}
                    </th>
                  ))}
                  <th scope="col">
                    <span className="visually-hidden">Save</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((rule) => (
                  <RuleRow key={rule.id} rule={rule} onSaved={(saved) => rules.setData(rows.map((r) => (r.id === saved.id ? saved : r)))} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </>
  );
}
