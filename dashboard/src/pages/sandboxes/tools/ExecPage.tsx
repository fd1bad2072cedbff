// A command runner: runs commands in the sandbox with their output streamed as it arrives, stdout and
// stderr told apart, and keeps this page's runs.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { PageTitle } from '../../../components/PageTitle';
import { Empty } from '../../../components/states';
import { Id } from '../../../components/format';
import { SandboxTabs } from '../SandboxTabs';
import { execRequest, type ExecFormValues } from './exec-form';
import { streamExec } from './exec-stream';
import { ExecRunView, type ExecRun } from './ExecRunView';
import './tools.css';

const EMPTY_FORM: ExecFormValues = { command: '', cwd: '', env: '', timeout: '' };

export default function ExecPage() {
  const { id = '' } = useParams();
  const [form, setForm] = useState(EMPTY_FORM);
  const [formError, setFormError] = useState<string | null>(null);
  const [runs, setRuns] = useState<ExecRun[]>([]);
  const running = runs.some((run) => !run.exit && !run.error);
  const aborts = useRef(new Set<AbortController>());
  const counter = useRef(0);

  useEffect(() => {
    const pending = aborts.current;
    return () => pending.forEach((controller) => controller.abort());
  }, []);

  const update = (runId: number, change: (run: ExecRun) => ExecRun) => setRuns((all) => all.map((run) => (run.id === runId ? change(run) : run)));

  async function submit(event: FormEvent) {
    event.preventDefault();
    let body;
    try {
      body = execRequest(form);
    } catch (error) {
      setFormError((error as Error).message);
      return;
    }
    setFormError(null);
    const run: ExecRun = { id: ++counter.current, command: body.command, cwd: body.cwd, startedAt: new Date().toISOString(), output: [] };
    setRuns((all) => [run, ...all]);
    const controller = new AbortController();
    aborts.current.add(controller);
    try {
      await streamExec(
        id,
        body,
        (line) => {
          if (line.type === 'exit') update(run.id, (r) => ({ ...r, exit: line }));
          else
            update(run.id, (r) => {
              const last = r.output[r.output.length - 1];
              // Consecutive chunks of one stream are one block, so long output stays a few elements.
              if (last && last.stream === line.type) return { ...r, output: [...r.output.slice(0, -1), { stream: line.type, text: last.text + line.data }] };
              return { ...r, output: [...r.output, { stream: line.type, text: line.data }] };
            });
        },
        controller.signal,
      );
    } catch (error) {
      if (!controller.signal.aborted) update(run.id, (r) => ({ ...r, error: (error as Error).message }));
    } finally {
      aborts.current.delete(controller);
    }
  }

  const field = (name: keyof ExecFormValues) => ({ value: form[name], onChange: (event: { target: { value: string } }) => setForm({ ...form, [name]: event.target.value }) });

  return (
    <>
      <PageTitle title="Commands">
        <Id value={id} />
      </PageTitle>
      <SandboxTabs id={id} />
      <form className="panel form exec-form" noValidate onSubmit={(event) => void submit(event)}>
        <div className="form-row">
          <label htmlFor="exec-command">Command</label>
          <div className="exec-command">
            <input id="exec-command" className="mono" required autoComplete="off" spellCheck={false} placeholder="ls -la" {...field('command')} />
            <button type="submit" className="button primary">
              Run
            </button>
          </div>
        </div>
        <details>
          <summary>Options</summary>
          <div className="exec-options">
            <div className="form-row">
              <label htmlFor="exec-cwd">Working directory</label>
              <input id="exec-cwd" className="mono" placeholder="/workspace" {...field('cwd')} />
            </div>
            <div className="form-row">
              <label htmlFor="exec-timeout">Timeout (seconds, at most 300)</label>
              <input id="exec-timeout" type="number" min={1} max={300} placeholder="300" {...field('timeout')} />
            </div>
            <div className="form-row">
              <label htmlFor="exec-env">Environment (NAME=value, one a line)</label>
              <textarea id="exec-env" className="mono" rows={3} spellCheck={false} {...field('env')} />
            </div>
          </div>
        </details>
        {formError && (
          <p className="form-error" role="alert">
            {formError}
          </p>
        )}
        {running && (
          <p className="muted" role="status">
            Running…
          </p>
        )}
      </form>
      <section aria-label="Runs" className="exec-runs">
        {runs.length === 0 ? <Empty>No commands run on this page yet. Commands run with /bin/sh -c in /workspace.</Empty> : runs.map((run) => <ExecRunView key={run.id} run={run} />)}
      </section>
    </>
  );
}
