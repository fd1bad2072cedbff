// An agent's card as discovery answers it (GET /.well-known/agent/<id>.json), for a public, enabled
// agent; others have no open card (discovery answers 404 without an API key), which this says instead.
import { api } from '../../api/client';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import type { Agent, AgentCard } from './types';

export function AgentCardPanel({ agent }: { agent: Agent }) {
  const open = agent.public && agent.enabled;
  const cardPath = `/.well-known/agent/${encodeURIComponent(agent.id)}.json`;
  const card = useApi((signal) => api.get<AgentCard>(cardPath, signal), [cardPath, agent.version], { enabled: open });
  return (
    <section className="panel" aria-labelledby="card-heading">
      <h2 id="card-heading">Public card</h2>
      {open ? (
        <Loaded state={card}>
          {(value) => (
            <>
              <p>
                Discovery serves it at <a href={cardPath}>{cardPath}</a>.
              </p>
              <dl className="facts">
                <dt>Endpoint</dt>
                <dd>
                  <code>{value.url}</code>
                </dd>
                <dt>Version</dt>
                <dd>{value.version}</dd>
                <dt>Provider</dt>
                <dd>{[value.provider.name, value.provider.organization].filter(Boolean).join(' · ')}</dd>
                <dt>Authentication</dt>
                <dd>
                  {value.authentication.type} ({value.authentication.schemes.join(', ')})
                </dd>
                <dt>Streaming</dt>
                <dd>{value.capabilities.streaming ? 'yes' : 'no'}</dd>
              </dl>
              <details>
                <summary>The card as JSON</summary>
                <pre className="agent-card-json" data-testid="agent-card-json" tabIndex={0}>
                  {JSON.stringify(value, null, 2)}
                </pre>
              </details>
            </>
          )}
        </Loaded>
      ) : (
        <p className="muted">
          {agent.enabled ? 'This agent is private' : 'This agent is disabled'}: discovery does not list it, and its card is answered only to a full-scope API key of this account.
        </p>
      )}
    </section>
  );
}
