// Creates a pipeline from a YAML file, runs it, shows the build stage's logs, approves the release when
// the run pauses for it, and waits for the run to end.
//
//   PADDOCK_URL=… PADDOCK_API_KEY=… npx tsx examples/pipeline-from-yaml.ts [examples/pipeline.yaml]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Paddock, type CreatePipelineParams } from '@paddock/sdk';

const file = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'pipeline.yaml');
const definition = parse(fs.readFileSync(file, 'utf8')) as CreatePipelineParams;
// Pipeline names are unique per account: a suffix lets the example run more than once.
definition.name = `${definition.name}-${Date.now().toString(36)}`;

const paddock = new Paddock();
const pipeline = await paddock.pipelines.create(definition);
console.log(`pipeline ${pipeline.name} (${pipeline.id}), version ${pipeline.version}, ${pipeline.stages.length} stages`);

const run = await paddock.pipelines.run(pipeline.id, { env: { APP_VERSION: '1.2.3' }, trigger: 'example' });
console.log(`run ${run.id} started`);
const paused = await paddock.pipelines.waitForRun(run, { untilPaused: true, timeoutMs: 300_000 });
const logs = await paddock.pipelines.logs(pipeline.id, run.id, 'build');
console.log(`build logs:\n${logs.attempts.map((attempt) => attempt.stdout).join('')}`);

if (paused.status === 'paused') {
  await paddock.pipelines.approve(pipeline.id, run.id, 'approved by the example');
  console.log('approved');
}
const done = await paddock.pipelines.waitForRun(run, { timeoutMs: 300_000 });
for (const stage of done.stages) console.log(`  ${stage.name}: ${stage.status}`);
console.log(`run ${done.status}`);
await paddock.pipelines.archive(pipeline.id);
process.exitCode = done.status === 'succeeded' ? 0 : 1;
