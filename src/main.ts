// The `paddock` command line.
import { parseArgs } from 'node:util';

/** Commands that talk to a server through the SDK (src/cli/client), loaded only when used. */
const CLIENT_COMMANDS = new Set(['login', 'logout', 'sandbox', 'pipeline', 'snapshot', 'agent', 'task', 'keys']);

const USAGE = `usage: paddock <command> [options]

commands:
  serve      run the service (--host, --port, --data, --role all|api|worker)
  doctor     check system dependencies and print how to fix what is missing
  migrate    apply database migrations (serve also does this at start)
  templates  build [names...] | import NAME ARCHIVE | list
  accounts   list | requests [--status S] | approve ID | reject ID [--reason R] | set-plan EMAIL_OR_ID PLAN
  nodes      list | drain ID | undrain ID (the nodes of a cluster on DATABASE_URL; see docs/scale-out.md)

client commands (talk to a Paddock server; \`paddock <command> --help\` for each):
  login      save the server URL and an API key (--url, --api-key; asks otherwise)
  logout     forget them
  sandbox    create | list | get | exec | shell | cp | ps | logs | kill | pause | resume | rm
  pipeline   apply -f FILE.yaml | list | run | runs | logs | approve | reject
  snapshot   create | list | restore | rm
  agent      list | get | create -f FILE | rm
  task       send | get | list | cancel | watch
  keys       list | create | revoke
  PADDOCK_URL and PADDOCK_API_KEY override the saved login; --json prints the API's JSON
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command && CLIENT_COMMANDS.has(command)) {
    const { clientCommand } = await import('./cli/client/index.js');
    return clientCommand(command, rest);
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      data: { type: 'string' },
      role: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      status: { type: 'string' },
      reason: { type: 'string' },
    },
  });
  if (!command || values.help || command === 'help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  // Loaded here, not at the top: the client commands above need none of the server's configuration.
  const { loadConfig } = await import('./config.js');
  const config = loadConfig(process.env, { host: values.host, port: values.port, data: values.data, role: values.role });
  switch (command) {
    // Each command loads only its own modules: the server's take over a second to load, which a
    // client command or `doctor` should not wait for.
    case 'serve': {
      const { serve } = await import('./cli/serve.js');
      await serve(config);
      return -1;
    }
    case 'doctor': {
      const { doctor } = await import('./cli/doctor.js');
      return doctor(config);
    }
    case 'migrate': {
      const { migrate } = await import('./cli/migrate.js');
      return migrate(config);
    }
    case 'templates': {
      const { templatesCommand } = await import('./cli/templates.js');
      return templatesCommand(positionals, config);
    }
    case 'accounts': {
      const { accountsCommand } = await import('./cli/accounts.js');
      return accountsCommand(positionals, { status: values.status, reason: values.reason }, config);
    }
    case 'nodes': {
      const { nodesCommand } = await import('./cli/nodes.js');
      return nodesCommand(positionals, config);
    }
    default:
      process.stderr.write(`unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  async (error) => {
    const { ConfigError } = await import('./config.js');
    process.stderr.write(error instanceof ConfigError ? `configuration error: ${error.message}\n` : `${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
