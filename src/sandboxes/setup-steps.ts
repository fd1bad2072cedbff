// The set-up a new sandbox goes through after it starts: clone the repository, install packages,
// install agents, run the init script. Each step runs inside the sandbox, so its network mode applies.
import type { CreateSandboxInput } from './schemas.js';

export interface SetupStep {
  name: string;
  command: string;
  env?: Record<string, string>;
  timeoutMs: number;
}

const TEN_MINUTES_MS = 10 * 60_000;

/** Quotes a value for /bin/sh. Values are also validated by pattern, but quoting does not rely on it. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function cloneStep(input: CreateSandboxInput): SetupStep {
  const url = shellQuote(input.repo!);
  const branch = input.repo_branch && !input.repo_commit ? `--branch ${shellQuote(input.repo_branch)}` : '';
  // The token travels as an HTTP header given on the command line, so it never reaches .git/config.
  const auth = input.repo_token ? '-c "http.extraHeader=Authorization: Basic $PADDOCK_GIT_AUTH"' : '';
  const checkout = input.repo_commit ? `git -C "$dest" checkout --quiet ${shellQuote(input.repo_commit)}` : 'true';
  const lines = ['set -e', input.repo_subdir ? 'dest=$(mktemp -d)' : 'dest=/workspace', `git ${auth} clone --quiet ${branch} -- ${url} "$dest"`, checkout];
  if (input.repo_subdir) {
    const subdir = shellQuote(input.repo_subdir);
    lines.push(
      `[ -d "$dest"/${subdir} ] || { echo "repo_subdir ${input.repo_subdir.replaceAll("'", '')} does not exist in the repository" >&2; exit 1; }`,
      `cp -a "$dest"/${subdir}/. /workspace/`,
      'rm -rf "$dest"',
      'cd /workspace && git init --quiet && git add -A && git -c user.name=paddock -c user.email=paddock@localhost commit --quiet -m "import"',
    );
  }
  const env: Record<string, string> = {};
  if (input.repo_token) env.PADDOCK_GIT_AUTH = Buffer.from(`x-access-token:${input.repo_token}`).toString('base64');
  return { name: 'repo clone', command: lines.join('\n'), env, timeoutMs: TEN_MINUTES_MS };
}

function packagesStep(template: string, packages: string[]): SetupStep {
  const quoted = packages.map(shellQuote).join(' ');
  const command = template.startsWith('node') ? `npm install --global --no-fund --no-audit ${quoted}` : `python3 -m pip install --quiet --break-system-packages ${quoted}`;
  return { name: 'packages', command, timeoutMs: TEN_MINUTES_MS };
}

export function setupSteps(input: CreateSandboxInput, agentCatalog: Record<string, string>): SetupStep[] {
  const steps: SetupStep[] = [];
  if (input.repo) steps.push(cloneStep(input));
  if (input.packages?.length) steps.push(packagesStep(input.template, input.packages));
  for (const agent of input.agents ?? []) steps.push({ name: `agent ${agent}`, command: agentCatalog[agent], timeoutMs: TEN_MINUTES_MS });
  if (input.init_script) steps.push({ name: 'init_script', command: input.init_script, timeoutMs: TEN_MINUTES_MS });
  return steps;
}
