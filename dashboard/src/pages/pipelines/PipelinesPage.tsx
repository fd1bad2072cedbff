// /pipelines: the account's pipelines, and a new one from a JSON definition.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { DefinitionForm, EXAMPLE_DEFINITION } from './DefinitionForm';
import type { Pipeline, PipelineListItem } from './types';
import './pipelines.css';

export default function PipelinesPage() {
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const pipelines = useApi((signal) => api.get<PipelineListItem[]>('/v1/pipelines?limit=100', signal), [], { pollMs: 30_000 });

  return (
    <>
      <PageTitle title="Pipelines">
        <Link to="/runs" className="button">
          All runs
        </Link>
        <button type="button" className="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          {creating ? 'Close' : 'New pipeline'}
        </button>
      </PageTitle>
      {creating && (
        <section className="panel" aria-labelledby="new-pipeline">
          <h2 id="new-pipeline">New pipeline</h2>
          <DefinitionForm
            initial={EXAMPLE_DEFINITION}
            submitLabel="Create pipeline"
            onSubmit={async (definition) => {
              const created = await api.post<Pipeline>('/v1/pipelines', definition);
              navigate(`/pipelines/${created.id}`);
            }}
          />
        </section>
      )}
      <Loaded state={pipelines} empty={<p>No pipelines yet. Create one from a definition with “New pipeline”.</p>}>
        {(list) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Version</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((pipeline) => (
                  <tr key={pipeline.id}>
                    <td>
                      <Link to={`/pipelines/${pipeline.id}`}>{pipeline.name}</Link>
                    </td>
                    <td>
                      <span className={`status status-${pipeline.status}`}>{pipeline.status}</span>
                    </td>
                    <td>v{pipeline.version}</td>
                    <td>
                      <TimeAgo iso={pipeline.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </>
  );
}
