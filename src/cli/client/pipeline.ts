// `paddock pipeline apply -f FILE | list | run | runs | logs | approve | reject`. A pipeline is named by its
// id or its name; `apply` creates the pipeline named in the file or saves a new version of it.
import type { CreatePipelineParams, Paddock, PipelineListItem, StageLogs, UpdatePipelineParams } from '@paddock/sdk';
import { integer, JSON_OPTION, pairs, parse, positionals } from './args.js';
import { withoutUndefined } from './sandbox.js';
import { readDefinitionFile } from './definition-file.js';
import { CliError, printJson, printLine, printTable, UsageError, withProgress } from './output.js';

export const PIPELINE_USAGE = `usage: paddock pipeline <command>
  apply -f FILE.yaml|FILE.json          create the pipeline named in the file, or save a new version of it
  list                                  run PIPELINE [--env NAME=value]... [--repo URL] [--branch B] [--wait]
  runs PIPELINE                         logs PIPELINE RUN_ID [STAGE]
  approve PIPELINE RUN_ID [--comment C] reject PIPELINE RUN_ID [--comment C]
PIPELINE is an id or a name; every command takes --json to print the API's JSON. run --wait exits 0 when
the run succeeded, 1 when it did not, 3 when it waits for an approval
`;

export async function pipelineCommand(client: () => Paddock, args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  switch (verb) {
    case 'apply':
      return apply(client(), rest);
    case 'list':
    case 'ls': {
      const { values, positionals: given } = parse('pipeline list', rest, JSON_OPTION);
      positionals('pipeline list', given, []);
      const pipelines = await allPipelines(client());
      if (values.json) printJson(pipelines);
      else
        printTable(pipelines, [
          ['id', (p) => p.id],
          ['name', (p) => p.name],
          ['version', (p) => p.version],
          ['status', (p) => p.status],
          ['created', (p) => p.created_at],
        ]);
      return 0;
    }
    case 'run':
      return run(client(), rest);
    case 'runs': {
      const { values, positionals: given } = parse('pipeline runs', rest, { ...JSON_OPTION, limit: { type: 'string' } });
      const [ref] = positionals('pipeline runs', given, ['PIPELINE']);
      const paddock = client();
      const pipeline = await resolve(paddock, ref);
      const runs = await paddock.pipelines.runs(pipeline.id, { limit: integer('pipeline runs', 'limit', values.limit) ?? 100 });
      if (values.json) printJson(runs);
      else
        printTable(runs, [
          ['id', (r) => r.id],
          ['status', (r) => r.status],
          ['version', (r) => r.version],
          ['trigger', (r) => r.trigger],
          ['created', (r) => r.created_at],
          ['duration', (r) => (r.duration_ms === null ? null : `${(r.duration_ms / 1000).toFixed(1)} s`)],
        ]);
      return 0;
    }
    case 'logs':
      return logs(client(), rest);
    case 'approve':
    case 'reject': {
      const { values, positionals: given } = parse(`pipeline ${verb}`, rest, { ...JSON_OPTION, comment: { type: 'string' } });
      const [ref, runId] = positionals(`pipeline ${verb}`, given, ['PIPELINE', 'RUN_ID']);
      const paddock = client();
      const pipeline = await resolve(paddock, ref);
      const result = await paddock.pipelines[verb](pipeline.id, runId, values.comment);
      if (values.json) printJson(result);
      else printLine(`${verb === 'approve' ? 'Approved' : 'Rejected'} stage ${result.stage.name} of ${result.run_id}`);
      return 0;
    }
    default:
      throw new UsageError(verb ? `unknown pipeline command "${verb}"` : 'pipeline needs a command');
  }
}

/** The definition in FILE; it must name the pipeline, since apply finds the one to update by name. */
export function readDefinition(file: string): Record<string, unknown> {
  const definition = readDefinitionFile(file);
  if (typeof definition.name !== 'string') throw new CliError(`${file} has no name: apply finds the pipeline to update by its name`, 'invalid_definition');
  return definition;
}

async function apply(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: given } = parse('pipeline apply', args, { ...JSON_OPTION, file: { type: 'string', short: 'f' } });
  positionals('pipeline apply', given, []);
  if (!values.file) throw new UsageError('pipeline apply: -f FILE is required');
  const definition = readDefinition(values.file);
  const existing = (await allPipelines(paddock)).find((pipeline) => pipeline.name === definition.name && pipeline.status !== 'archived');
  const saved = existing ? await paddock.pipelines.update(existing.id, definition as UpdatePipelineParams) : await paddock.pipelines.create(definition as CreatePipelineParams);
  if (values.json) printJson(saved);
  else printLine(`${existing ? 'Updated' : 'Created'} pipeline ${saved.name} (${saved.id}), version ${saved.version}`);
  return 0;
}

async function run(paddock: Paddock, args: string[]): Promise<number> {
  const options = { ...JSON_OPTION, env: { type: 'string', multiple: true }, repo: { type: 'string' }, branch: { type: 'string' }, wait: { type: 'boolean' } } as const;
  const { values, positionals: given } = parse('pipeline run', args, options);
  const [ref] = positionals('pipeline run', given, ['PIPELINE']);
  const pipeline = await resolve(paddock, ref);
  const body = { env: pairs('pipeline run', 'env', values.env), repo: values.repo, branch: values.branch, trigger: 'cli' };
  let started = await paddock.pipelines.run(pipeline.id, withoutUndefined(body));
  if (values.wait) {
    const runId = started.id;
    started = await withProgress(`waiting for run ${runId}`, () => paddock.pipelines.waitForRun(pipeline.id, runId, { timeoutMs: 24 * 3600_000, pollMs: 500, untilPaused: true }));
  }
  if (values.json) printJson(started);
  else {
    printLine(started.id);
    if (values.wait) for (const stage of started.stages ?? []) process.stderr.write(`  ${stage.name}: ${stage.status}${stage.error ? ` (${stage.error})` : ''}\n`);
  }
  if (!values.wait || started.status === 'succeeded') return 0;
  if (started.status !== 'paused') return 1;
  // Not a failure: the run waits for a person. Say who can move it on, and how.
  for (const stage of (started.stages ?? []).filter((one) => one.status === 'paused_approval'))
    process.stderr.write(`run ${started.id} waits for approval of stage ${stage.name}: paddock pipeline approve ${ref} ${started.id} (or reject)\n`);
  return WAITS_FOR_APPROVAL;
}

/** `run --wait`'s exit code when the run stopped at an approval (1 is a run that did not succeed, 2 a usage error). */
const WAITS_FOR_APPROVAL = 3;

async function logs(paddock: Paddock, args: string[]): Promise<number> {
  const { values, positionals: given } = parse('pipeline logs', args, JSON_OPTION);
  const [ref, runId, stageName] = positionals('pipeline logs', given, ['PIPELINE', 'RUN_ID'], ['STAGE']);
  const pipeline = await resolve(paddock, ref);
  const names = stageName ? [stageName] : (await paddock.pipelines.getRun(pipeline.id, runId)).stages.map((stage) => stage.name);
  const all: StageLogs[] = [];
  for (const name of names) all.push(await paddock.pipelines.logs(pipeline.id, runId, name));
  if (values.json) printJson(stageName ? all[0] : all);
  else
    for (const stage of all)
      for (const attempt of stage.attempts) {
        printLine(`==> ${stage.stage} (attempt ${attempt.attempt}, ${attempt.status}${attempt.exit_code === null ? '' : `, exit ${attempt.exit_code}`})`);
        if (attempt.stdout) process.stdout.write(attempt.stdout.endsWith('\n') ? attempt.stdout : `${attempt.stdout}\n`);
        if (attempt.stderr) process.stderr.write(attempt.stderr.endsWith('\n') ? attempt.stderr : `${attempt.stderr}\n`);
      }
  return 0;
}

async function allPipelines(paddock: Paddock): Promise<PipelineListItem[]> {
  const pipelines: PipelineListItem[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await paddock.pipelines.list({ limit: 100, offset });
    pipelines.push(...page);
    if (page.length < 100) return pipelines;
  }
}

/** An id, else the newest active pipeline of that name. */
async function resolve(paddock: Paddock, ref: string): Promise<PipelineListItem> {
  const pipelines = await allPipelines(paddock);
  const found = pipelines.find((pipeline) => pipeline.id === ref) ?? pipelines.find((pipeline) => pipeline.name === ref && pipeline.status !== 'archived');
  if (!found) throw new CliError(`no pipeline with the id or name "${ref}"`, 'pipeline_not_found');
  return found;
}
