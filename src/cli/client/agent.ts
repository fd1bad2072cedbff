// `paddock agent list | get | create -f FILE | rm`: agents other agents delegate tasks to (A2A).
import type { Agent, CreateAgentParams, Paddock } from '@paddock/sdk';
import { JSON_OPTION, parse, positionals } from './args.js';
import { printJson, printLine, printRecord, printTable, UsageError } from './output.js';
import { readDefinitionFile } from './definition-file.js';

export const AGENT_USAGE = `usage: paddock agent <command>
  list                get AGENT_ID                rm AGENT_ID
  create -f FILE      (YAML or JSON: name, pipeline_id, skills, and optionally description, template, public, …)
every command takes --json to print the API's JSON
`;

export async function agentCommand(client: () => Paddock, args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  switch (verb) {
    case 'list':
    case 'ls': {
      const { values, positionals: given } = parse('agent list', rest, JSON_OPTION);
      positionals('agent list', given, []);
      const agents = await client().agents.list();
      if (values.json) printJson(agents);
      else
        printTable<Agent>(agents, [
          ['id', (a) => a.id],
          ['name', (a) => a.name],
          ['enabled', (a) => a.enabled],
          ['public', (a) => a.public],
          ['skills', (a) => a.skills?.map((skill) => skill.id)],
          ['url', (a) => a.url],
        ]);
      return 0;
    }
    case 'get': {
      const { values, positionals: given } = parse('agent get', rest, JSON_OPTION);
      const [id] = positionals('agent get', given, ['AGENT_ID']);
      const agent = await client().agents.get(id);
      if (values.json) printJson(agent);
      else printRecord(agent as unknown as Record<string, unknown>);
      return 0;
    }
    case 'create': {
      const { values, positionals: given } = parse('agent create', rest, { ...JSON_OPTION, file: { type: 'string', short: 'f' } });
      positionals('agent create', given, []);
      if (!values.file) throw new UsageError('agent create: -f FILE is required');
      const agent = await client().agents.create(readDefinitionFile(values.file) as CreateAgentParams);
      if (values.json) printJson(agent);
      else printLine(agent.id);
      return 0;
    }
    case 'rm': {
      const { values, positionals: given } = parse('agent rm', rest, JSON_OPTION);
      const [id] = positionals('agent rm', given, ['AGENT_ID']);
      await client().agents.delete(id);
      if (values.json) printJson({ id, deleted: true });
      else printLine(`Deleted ${id}`);
      return 0;
    }
    default:
      throw new UsageError(verb ? `unknown agent command "${verb}"` : 'agent needs a command');
  }
}
