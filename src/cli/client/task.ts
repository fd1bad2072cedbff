// `paddock task send | get | list | cancel | watch`: tasks delegated to an agent (A2A).
import type { Paddock, Task } from '@paddock/sdk';
import { JSON_OPTION, integer, parse, positionals } from './args.js';
import { printJson, printLine, printRecord, printTable, UsageError } from './output.js';

export const TASK_USAGE = `usage: paddock task <command>
  send AGENT_ID SKILL_ID [--input JSON] [--priority N] [--watch]
  get TASK_ID            list [--agent AGENT_ID] [--status S]
  cancel TASK_ID         watch TASK_ID   (follows the task's events until it ends; exit 1 unless it completed)
every command takes --json to print the API's JSON
`;

export async function taskCommand(client: () => Paddock, args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  switch (verb) {
    case 'send': {
      const { values, positionals: given } = parse('task send', rest, { ...JSON_OPTION, input: { type: 'string' }, priority: { type: 'string' }, watch: { type: 'boolean' } });
      const [agentId, skillId] = positionals('task send', given, ['AGENT_ID', 'SKILL_ID']);
      let input: unknown = {};
      if (values.input !== undefined) {
        try {
          input = JSON.parse(values.input);
        } catch {
          throw new UsageError(`task send: --input must be a JSON object, not ${values.input}`);
        }
      }
      const paddock = client();
      const created = await paddock.tasks.send(agentId, { skill_id: skillId, input: input as Record<string, never>, priority: integer('task send', 'priority', values.priority) });
      if (values.watch) return watch(paddock, created.id, Boolean(values.json));
      if (values.json) printJson(created);
      else printLine(created.id);
      return 0;
    }
    case 'get': {
      const { values, positionals: given } = parse('task get', rest, JSON_OPTION);
      const [id] = positionals('task get', given, ['TASK_ID']);
      const found = await client().tasks.get(id);
      if (values.json) printJson(found);
      else printRecord(found as unknown as Record<string, unknown>);
      return 0;
    }
    case 'list':
    case 'ls': {
      const { values, positionals: given } = parse('task list', rest, { ...JSON_OPTION, agent: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' } });
      positionals('task list', given, []);
      const page = await client().tasks.list({ agent_id: values.agent, status: values.status as Task['status'] | undefined, limit: integer('task list', 'limit', values.limit) });
      if (values.json) printJson(page);
      else
        printTable<Task>(page.tasks, [
          ['id', (t) => t.id],
          ['agent', (t) => t.agent_id],
          ['skill', (t) => t.skill_id],
          ['status', (t) => t.status],
          ['progress', (t) => `${t.progress?.percentage ?? 0}%`],
          ['created', (t) => t.created_at],
        ]);
      return 0;
    }
    case 'cancel': {
      const { values, positionals: given } = parse('task cancel', rest, JSON_OPTION);
      const [id] = positionals('task cancel', given, ['TASK_ID']);
      const result = await client().tasks.cancel(id);
      if (values.json) printJson(result);
      else printLine(`Canceled ${id}`);
      return 0;
    }
    case 'watch': {
      const { values, positionals: given } = parse('task watch', rest, JSON_OPTION);
      const [id] = positionals('task watch', given, ['TASK_ID']);
      return watch(client(), id, Boolean(values.json));
    }
    default:
      throw new UsageError(verb ? `unknown task command "${verb}"` : 'task needs a command');
  }
}

/** Prints the task's events as they come (JSON lines with --json); exit 0 when it completed. */
async function watch(paddock: Paddock, id: string, json: boolean): Promise<number> {
  for await (const event of paddock.tasks.stream(id)) {
    if (json) printLine(JSON.stringify(event));
    else printLine(`${event.kind}: ${JSON.stringify(event.data)}`);
  }
  const final = await paddock.tasks.get(id);
  if (!json) process.stderr.write(`task ${id} ${final.status}\n`);
  return final.status === 'completed' ? 0 : 1;
}
