// The client side of `paddock`: commands that talk to a Paddock server through the SDK, with the
// connection from `paddock login` (or PADDOCK_URL / PADDOCK_API_KEY).
import type { Paddock } from '@paddock/sdk';
import { agentCommand, AGENT_USAGE } from './agent.js';
import { connect } from './config.js';
import { keysCommand, KEYS_USAGE } from './keys.js';
import { login, logout } from './login.js';
import { reportError } from './output.js';
import { pipelineCommand, PIPELINE_USAGE } from './pipeline.js';
import { sandboxCommand, SANDBOX_USAGE } from './sandbox.js';
import { snapshotCommand, SNAPSHOT_USAGE } from './snapshot.js';
import { taskCommand, TASK_USAGE } from './task.js';

type Command = (client: () => Paddock, args: string[]) => Promise<number>;

const NOUNS: Record<string, { run: Command; usage: string }> = {
  sandbox: { run: sandboxCommand, usage: SANDBOX_USAGE },
  pipeline: { run: pipelineCommand, usage: PIPELINE_USAGE },
  snapshot: { run: snapshotCommand, usage: SNAPSHOT_USAGE },
  agent: { run: agentCommand, usage: AGENT_USAGE },
  task: { run: taskCommand, usage: TASK_USAGE },
  keys: { run: keysCommand, usage: KEYS_USAGE },
};

const LOGIN_USAGE = 'usage: paddock login [--url URL] [--api-key KEY]   (asks for what is not given)\n       paddock logout\n';

export async function clientCommand(command: string, args: string[]): Promise<number> {
  const noun = NOUNS[command];
  const usage = noun?.usage ?? LOGIN_USAGE;
  if (args.includes('--help') || args.includes('-h') || (noun && (args.length === 0 || args[0] === 'help'))) {
    process.stdout.write(usage);
    return args.length === 0 ? 2 : 0;
  }
  try {
    if (command === 'login') return await login(args);
    if (command === 'logout') return await logout(args);
    const client = lazyClient();
    return await noun.run(() => client, args);
  } catch (error) {
    return reportError(error, `paddock ${command}`);
  }
}

/** The client, connected at its first use: a command checks its arguments (exit 2) before a missing login (exit 1). */
function lazyClient(): Paddock {
  let client: Paddock | undefined;
  return new Proxy({} as Paddock, { get: (_target, property) => Reflect.get((client ??= connect()), property) });
}
