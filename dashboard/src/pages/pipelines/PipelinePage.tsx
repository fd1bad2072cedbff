// /pipelines/:id: the definition with its DAG drawn, its versions (an older one with ?version=n), a new
// version from edited JSON, starting a run, and the pipeline's recent runs.
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { Id, TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { DagView } from './DagView';
import { DefinitionForm } from './DefinitionForm';
import { RunsTable } from './RunsTable';
import { StartRunForm } from './StartRunForm';
import type { Pipeline, PipelineVersion, RunListItem } from './types';
import './pipelines.css';

function editableDefinition(pipeline: Pipeline): string {
  return JSON.stringify({ name: pipeline.name, description: pipeline.description, stages: pipeline.stages, defaults: pipeline.defaults }, null, 2);
}

export default function PipelinePage() {
  const { id = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const versionParam = Number(search.get('version')) || null;
  const [panel, setPanel] = useState<'run' | 'edit' | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const pipeline = useApi((signal) => api.get<Pipeline>(`/v1/pipelines/${id}`, signal), [id]);
  const versions = useApi((signal) => api.get<PipelineVersion[]>(`/v1/pipelines/${id}/versions`, signal), [id]);
  const shownVersion = useApi((signal) => api.get<PipelineVersion>(`/v1/pipelines/${id}/versions/${versionParam}`, signal), [id, versionParam], { enabled: versionParam !== null });
  const runs = useApi((signal) => api.get<RunListItem[]>(`/v1/pipelines/${id}/runs?limit=10`, signal), [id], { pollMs: 15_000 });

  return (
    <Loaded state={pipeline}>
      {(current) => {
        const shown = versionParam !== null && versionParam !== current.version ? shownVersion.data : current;
        const stage = shown?.stages.find((candidate) => candidate.name === selected);
        return (
          <>
            <PageTitle title={current.name}>
              <button type="button" aria-expanded={panel === 'run'} onClick={() => setPanel(panel === 'run' ? null : 'run')} disabled={current.status !== 'active'} className="primary">
                Start a run
              </button>
              <button type="button" aria-expanded={panel === 'edit'} onClick={() => setPanel(panel === 'edit' ? null : 'edit')} disabled={current.status !== 'active'}>
                New version
              </button>
            </PageTitle>
            <dl className="facts panel">
              <dt>Id</dt>
              <dd>
                <Id value={current.id} />
              </dd>
              <dt>Status</dt>
              <dd>
                <span className={`status status-${current.status}`}>{current.status}</span>
              </dd>
              <dt>Version</dt>
              <dd>v{current.version}</dd>
              <dt>Description</dt>
              <dd>{current.description || <span className="muted">—</span>}</dd>
              <dt>Updated</dt>
              <dd>
                <TimeAgo iso={current.updated_at} />
              </dd>
            </dl>
            {panel === 'run' && (
              <section className="panel" aria-labelledby="start-run">
                <h2 id="start-run">Start a run</h2>
                <StartRunForm pipelineId={current.id} />
              </section>
            )}
            {panel === 'edit' && (
              <section className="panel" aria-labelledby="new-version">
                <h2 id="new-version">New version</h2>
                <DefinitionForm
                  initial={editableDefinition(current)}
                  submitLabel="Save as a new version"
                  onSubmit={async (definition) => {
                    const updated = await api.put<Pipeline>(`/v1/pipelines/${id}`, definition);
                    pipeline.setData(updated);
                    setPanel(null);
                    setSearch({});
                    void versions.reload();
                  }}
                />
              </section>
            )}
            <h2>Stages {shown && shown.version !== current.version ? `(version ${shown.version})` : ''}</h2>
            {shown ? (
              <>
                <DagView stages={shown.stages} selected={selected} onSelect={setSelected} label={`Stages of ${current.name} version ${shown.version}`} />
                {stage ? (
                  <section className="panel stage-detail" aria-label={`Stage ${stage.name}`}>
                    <h3>
                      {stage.name} <span className="muted">({stage.type})</span>
                    </h3>
                    <pre>{JSON.stringify(stage, null, 2)}</pre>
                  </section>
                ) : (
                  <p className="muted">Select a stage to see its definition.</p>
                )}
              </>
            ) : (
              <Loaded state={shownVersion}>{() => null}</Loaded>
            )}
            <h2>Versions</h2>
            <Loaded state={versions} empty={<p>No versions.</p>}>
              {(list) => (
                <div className="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Version</th>
                        <th scope="col">Stages</th>
                        <th scope="col">Saved</th>
                        <th scope="col">Definition</th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((version) => {
                        const isShown = (shown?.version ?? current.version) === version.version;
                        return (
                          <tr key={version.version}>
                            <td>
                              v{version.version}
                              {version.version === current.version && <span className="muted"> (current)</span>}
                            </td>
                            <td>{version.stages.length}</td>
                            <td>
                              <TimeAgo iso={version.created_at} />
                            </td>
                            <td>{isShown ? 'Shown above' : <Link to={version.version === current.version ? '?' : `?version=${version.version}`}>View version {version.version}</Link>}</td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </div>
              )}
            </Loaded>
            <h2>Recent runs</h2>
            <Loaded state={runs} empty={<p>No runs yet.</p>}>
              {(list) => <RunsTable runs={list} showPipeline={false} />}
            </Loaded>
          </>
        );
      }}
    </Loaded>
  );
}
