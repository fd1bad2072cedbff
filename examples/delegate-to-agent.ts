// Delegates a task to an A2A agent and prints its progress as it streams. With PADDOCK_AGENT_ID it uses
// that agent (its first skill, input {"query": …}); without, it registers one backed by a small pipeline
// whose sandbox stage answers the query, and deletes it afterwards.
//
//   PADDOCK_URL=… PADDOCK_API_KEY=… npx tsx examples/delegate-to-agent.ts "what is 6 times 7?"
import { Paddock } from '@paddock/sdk';

const paddock = new Paddock();
const query = process.argv[2] ?? 'what is 6 times 7?';

/** The stage reads the task's input (A2A_INPUT) and writes its answer to the run state `task_output`, the task's output. */
const ANSWER = `python3 - <<'PY'
import json, os, urllib.request
query = json.loads(os.environ['A2A_INPUT'])['query']
print('thinking about', query, flush=True)
body = json.dumps({'value': {'answer': 'you asked: ' + query, 'words': len(query.split())}}).encode()
request = urllib.request.Request(os.environ['PADDOCK_STATE_URL'] + '/task_output', data=body, method='PUT',
    headers={'authorization': 'Bearer ' + os.environ['PADDOCK_STATE_TOKEN'], 'content-type': 'application/json'})
urllib.request.urlopen(request).read()
PY`;

async function exampleAgent() {
  const pipeline = await paddock.pipelines.create({
    name: `answer-questions-${Date.now().toString(36)}`,
    stages: [
      { name: 'research', type: 'command', command: 'echo "looking things up"' },
      { name: 'answer', type: 'command', template: 'python-311', command: ANSWER, depends_on: ['research'] },
    ],
  });
  const skill = {
    id: 'answer',
    name: 'Answer',
    description: 'Answers a question.',
    tags: ['example'],
    input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  };
  const agent = await paddock.agents.create({ name: pipeline.name, description: 'Answers questions (Paddock SDK example).', pipeline_id: pipeline.id, skills: [skill] });
  return { agent, cleanup: async () => (await paddock.agents.delete(agent.id), await paddock.pipelines.archive(pipeline.id)) };
}

const { agent, cleanup } = process.env.PADDOCK_AGENT_ID ? { agent: await paddock.agents.get(process.env.PADDOCK_AGENT_ID), cleanup: async () => undefined } : await exampleAgent();
console.log(`delegating to ${agent.name} (${agent.id}): ${query}`);
const task = await paddock.tasks.send(agent.id, { skill_id: agent.skills[0]!.id, input: { query } });
try {
  for await (const event of paddock.tasks.stream(task.id)) {
    if (event.kind === 'status') console.log(`status: ${event.data.status}${event.data.message ? ` (${event.data.message})` : ''}`);
    else if (event.kind === 'progress') console.log(`progress: ${event.data.percentage}% ${event.data.current_step ?? ''}`.trimEnd());
    else if (event.kind === 'complete') console.log(`complete: ${JSON.stringify(event.data.output)}`);
    else if (event.kind === 'error') console.log(`error: ${JSON.stringify(event.data.error)}`);
    else console.log(`${event.kind}: ${JSON.stringify(event.data)}`);
    if (event.kind === 'status' && event.data.status === 'input_needed') await paddock.tasks.respond(task.id, 'go ahead');
  }
  const finished = await paddock.tasks.get(task.id);
  console.log(`task ${finished.status}, cost $${finished.cost_usd.toFixed(4)}`);
  process.exitCode = finished.status === 'completed' ? 0 : 1;
} finally {
  await cleanup();
}
