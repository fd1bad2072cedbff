// Registering an agent: a name, the pipeline each task runs, and its skills (JSON: id, name,
// description, tags, input_schema), checked by the API which names the field at fault.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../../api/client';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import type { Agent, PipelineSummary } from './types';
import './agents.css';

const EXAMPLE_SKILLS = JSON.stringify(
  [{ id: 'answer', name: 'Answer', description: 'Answers a question.', tags: ['qa'], input_schema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] } }],
  null,
  2,
);

export default function NewAgentPage() {
  const navigate = useNavigate();
  const pipelines = useApi((signal) => api.get<PipelineSummary[]>('/v1/pipelines?limit=100', signal), []);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function register(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(null);
    let skills: unknown;
    try {
      skills = JSON.parse(String(form.get('skills')));
    } catch (caught) {
      setError(`Skills are not JSON: ${(caught as Error).message}`);
      return;
    }
    setBusy(true);
    try {
      const agent = await api.post<Agent>('/v1/a2a/agents', {
        name: String(form.get('name')),
        description: String(form.get('description')),
        pipeline_id: String(form.get('pipeline_id')),
        public: form.get('public') === 'on',
        skills,
      });
      navigate(`/agents/${encodeURIComponent(agent.id)}`);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <PageTitle title="Register an agent" />
      <Loaded
        state={pipelines}
        empty={
          <p>
            An agent runs one of your pipelines, and you have none yet: <Link to="/pipelines">create a pipeline</Link> first.
          </p>
        }
      >
        {(list) => (
          <form className="form agent-form panel" onSubmit={(event) => void register(event)}>
            <label>
              Name
              <input name="name" required maxLength={100} autoComplete="off" />
            </label>
            <label>
              Description
              <input name="description" maxLength={2000} autoComplete="off" />
            </label>
            <label>
              Pipeline
              <select name="pipeline_id" required>
                {list.map((pipeline) => (
                  <option key={pipeline.id} value={pipeline.id}>
                    {pipeline.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="form-row">
              <input type="checkbox" name="public" /> Public: listed by discovery, its card open to anyone
            </label>
            <label>
              Skills (JSON)
              <textarea name="skills" required defaultValue={EXAMPLE_SKILLS} spellCheck={false} />
            </label>
            {error && (
              <p className="form-error" role="alert">
                {error}
              </p>
            )}
            <div className="form-row">
              <button type="submit" className="primary" disabled={busy}>
                Register
              </button>
              <Link to="/agents">Back to agents</Link>
            </div>
          </form>
        )}
      </Loaded>
    </>
  );
}
