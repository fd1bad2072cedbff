// The trust model (docs/trust.md): each event is checked against fixed rules; every finding costs its
// rule's weight until that rule's cap is reached; the score is 100 minus the points taken, never below 0.
// Deterministic: the same events in the same order always give the same findings and score.
import path from 'node:path';
import type { EventType } from './ingest-validation.js';

export type FindingSeverity = 'low' | 'medium' | 'high' | 'critical';

export interface TrustRule {
  severity: FindingSeverity;
  /** Points one finding takes off the score. */
  weight: number;
  /** Most points the rule can take off one session, however often it fires. */
  cap: number;
}

export const TRUST_RULES = {
  agent_error: { severity: 'low', weight: 5, cap: 25 },
  network_denied: { severity: 'medium', weight: 10, cap: 30 },
  write_outside_workspace: { severity: 'medium', weight: 10, cap: 30 },
  privilege_change: { severity: 'medium', weight: 15, cap: 45 },
  pipe_to_shell: { severity: 'high', weight: 25, cap: 50 },
  secret_in_output: { severity: 'high', weight: 30, cap: 60 },
  destructive_delete: { severity: 'critical', weight: 40, cap: 80 },
} as const satisfies Record<string, TrustRule>;

export type TrustRuleName = keyof typeof TRUST_RULES;

/** Findings kept per rule and session; past it a rule is long capped and more rows say nothing new. */
export const MAX_FINDINGS_PER_RULE = 100;

export interface Finding {
  rule: TrustRuleName;
  evidence: string;
}

export interface ScoredFinding extends Finding {
  sequence: number;
  severity: FindingSeverity;
  weight: number;
  penalty: number;
}

/** What a session's stored findings already took, per rule. */
export type RuleTally = Map<TrustRuleName, { count: number; penalty: number }>;

const EVIDENCE_CHARS = 200;
const SCANNED_OUTPUT_CHARS = 64 * 1024;
const OUTPUT_FIELDS = ['output', 'result', 'response', 'completion', 'content', 'stdout', 'stderr', 'text', 'message'];
const READ_OPERATIONS = new Set(['read', 'list', 'ls', 'stat', 'exists', 'open', 'glob', 'search', 'view']);
const SYSTEM_DIRS = new Set([
  '/',
  '/*',
  '~',
  '~/',
  '~/*',
  '$HOME',
  '$HOME/',
  '${HOME}',
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/home',
  '/lib',
  '/lib64',
  '/opt',
  '/proc',
  '/root',
  '/sbin',
  '/srv',
  '/sys',
  '/usr',
  '/var',
  '/workspace',
  '/workspace/',
]);

const SECRET_PATTERNS: [string, RegExp][] = [
  ['AWS access key', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['private key', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/],
  ['GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/],
  ['Slack token', /\bxox[abprs]-[A-Za-z0-9-]{10,}/],
  ['Paddock API key', /\bsvc_sk_[A-Za-z0-9]{43}\b/],
  ['Stripe secret key', /\b[sr]k_live_[0-9A-Za-z]{24,}\b/],
  ['Google API key', /\bAIza[0-9A-Za-z_-]{35}\b/],
  ['LLM provider API key', /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}\b/],
];

function clip(text: string): string {
  const oneLine = text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  return oneLine.length > EVIDENCE_CHARS ? `${oneLine.slice(0, EVIDENCE_CHARS)}…` : oneLine;
}

function redact(secret: string): string {
  return secret.length <= 8 ? '…' : `${secret.slice(0, 4)}…${secret.slice(-2)}`;
}

/** Simple commands of a shell line, as words with quotes removed: good enough to recognise intent. */
function simpleCommands(line: string): string[][] {
  return line
    .split(/\|\||&&|[;&|\n(){}`]|\$\(/)
    .map((part) =>
      part
        .trim()
        .split(/\s+/)
        .map((word) => word.replace(/^["']+|["']+$/g, ''))
        .filter(Boolean),
    )
    .filter((words) => words.length > 0);
}

/** Drops leading wrappers (sudo, env, nohup, VAR=value) and a path on the program name. */
function program(words: string[]): { name: string; args: string[]; elevated: boolean } {
  let i = 0;
  let elevated = false;
  while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]) || ['sudo', 'doas', 'env', 'nohup', 'time', 'exec', 'command'].includes(words[i]))) {
    if (words[i] === 'sudo' || words[i] === 'doas') elevated = true;
    i++;
    while (elevated && i < words.length && words[i].startsWith('-')) i++;
  }
  return { name: (words[i] ?? '').replace(/^.*\//, ''), args: words.slice(i + 1), elevated };
}

function isDestructive(name: string, args: string[]): boolean {
  if (name === 'rm') {
    const flags = args.filter((a) => a.startsWith('-'));
    const recursive = flags.some((f) => f === '--recursive' || /^-[a-zA-Z]*[rR]/.test(f));
    const targets = args.filter((a) => !a.startsWith('-'));
    return flags.includes('--no-preserve-root') || (recursive && targets.some((t) => SYSTEM_DIRS.has(t.replace(/\/+$/, '') || '/') || SYSTEM_DIRS.has(t)));
  }
  if (/^mkfs(\.|$)/.test(name)) return true;
  if (name === 'dd') return args.some((a) => /^of=\/dev\/(sd|hd|vd|xvd|nvme|mmcblk)/.test(a));
  return false;
}

function isPrivilegeChange(name: string, args: string[]): boolean {
  if (name === 'su' || name === 'setcap' || name === 'visudo') return true;
  if (name === 'chmod') return args.some((a) => /^(?:[0-7]?777|[ugoa]*\+[rwx]*s|[4267][0-7]{3})$/.test(a));
  if (name === 'chown' || name === 'chgrp') return args.some((a) => /^(?:root|0)(?::|$)/.test(a) || /^:(?:root|0)$/.test(a));
  if (name === 'usermod') return args.some((a) => /^-[a-zA-Z]*G/.test(a));
  return false;
}

const PIPE_TO_SHELL = [
  /\b(?:curl|wget|fetch)\b[^|;&\n]*\|\s*(?:sudo\s+)?(?:env\s+)?(?:ba|z|da|k|fi)?sh\b/,
  /\b(?:curl|wget)\b[^|;&\n]*\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node)\b/,
  /\b(?:ba|z|da)?sh\s+(?:-c\s+)?["']?\$\(\s*(?:curl|wget)\b/,
  /\b(?:ba|z|da)?sh\s+<\(\s*(?:curl|wget)\b/,
];

/** Absolute paths a shell line writes through `>`, `>>` or `tee`. */
function redirectTargets(line: string): string[] {
  const targets: string[] = [];
  for (const match of line.matchAll(/(?:^|[^<&>0-9])[0-9]?>>?\|?\s*(\/[^\s;&|)]*)/g)) targets.push(match[1]);
  for (const match of line.matchAll(/\btee\s+(?:-[a-z]+\s+)*(\/[^\s;&|)]*)/g)) targets.push(match[1]);
  return targets;
}

function outsideWorkspace(target: string): boolean {
  const resolved = path.posix.resolve('/workspace', target);
  if (resolved === '/workspace' || resolved.startsWith('/workspace/') || resolved === '/tmp' || resolved.startsWith('/tmp/')) return false;
  return !['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty'].includes(resolved) && !resolved.startsWith('/proc/self/fd/') && !resolved.startsWith('/dev/fd/');
}

// Cheap tests that rule out most commands before the word-by-word checks (ingest speed).
const RISKY_PROGRAM = /\b(?:rm|mkfs|dd|sudo|doas|su|chmod|chown|chgrp|setcap|visudo|usermod)\b/;
const DOWNLOAD = /\b(?:curl|wget|fetch)\b/;
const WRITE = />|\btee\b/;

function commandFindings(line: string): Finding[] {
  const found = new Map<TrustRuleName, string>();
  if (RISKY_PROGRAM.test(line)) {
    for (const words of simpleCommands(line)) {
      const { name, args, elevated } = program(words);
      if (isDestructive(name, args)) found.set('destructive_delete', clip(line));
      if (elevated || isPrivilegeChange(name, args)) found.set('privilege_change', clip(line));
    }
  }
  if (DOWNLOAD.test(line) && PIPE_TO_SHELL.some((pattern) => pattern.test(line))) found.set('pipe_to_shell', clip(line));
  const outside = WRITE.test(line) ? redirectTargets(line).find(outsideWorkspace) : undefined;
  if (outside) found.set('write_outside_workspace', `writes ${clip(outside)}: ${clip(line)}`);
  return [...found].map(([rule, text]) => ({ rule, evidence: text }));
}

function outputText(payload: Record<string, unknown>): string {
  let text = '';
  for (const field of OUTPUT_FIELDS) {
    const value = payload[field];
    if (value === undefined || value === null) continue;
    text += (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, SCANNED_OUTPUT_CHARS) + '\n';
  }
  return text;
}

/** Every secret pattern starts with one of these; most outputs hold none. */
const SECRET_HINT = /AKIA|ASIA|PRIVATE KEY|gh[pousr]_|github_pat_|xox[abprs]-|svc_sk_|k_live_|AIza|sk-/;

function secretFinding(payload: Record<string, unknown>): Finding | null {
  const text = outputText(payload);
  if (!text || !SECRET_HINT.test(text)) return null;
  const kinds: string[] = [];
  for (const [kind, pattern] of SECRET_PATTERNS) {
    const match = pattern.exec(text);
    if (match) kinds.push(kind === 'private key' ? kind : `${kind} ${redact(match[0])}`);
  }
  return kinds.length ? { rule: 'secret_in_output', evidence: `${kinds.join(', ')} in the output` } : null;
}

function commandOf(type: EventType, payload: Record<string, unknown>): string | null {
  if (type === 'command') return typeof payload.command === 'string' ? payload.command : null;
  if (type !== 'tool_call') return null;
  for (const holder of [payload, payload.arguments, payload.input, payload.args]) {
    if (holder && typeof holder === 'object' && typeof (holder as Record<string, unknown>).command === 'string') return (holder as Record<string, string>).command;
  }
  return null;
}

/** Every rule the event trips, at most one finding per rule. */
export function findingsForEvent(type: EventType, payload: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  if (type === 'error') findings.push({ rule: 'agent_error', evidence: clip(typeof payload.message === 'string' ? payload.message : JSON.stringify(payload)) || 'error event' });
  if (type === 'network' && payload.allowed === false) {
    const target = [payload.host, payload.url].find((v) => typeof v === 'string') as string | undefined;
    findings.push({ rule: 'network_denied', evidence: target ? `denied: ${clip(target)}` : 'denied network attempt' });
  }
  if (type === 'file_op' && typeof payload.path === 'string') {
    const operation = typeof payload.operation === 'string' ? payload.operation.toLowerCase() : 'write';
    if (!READ_OPERATIONS.has(operation) && outsideWorkspace(payload.path)) findings.push({ rule: 'write_outside_workspace', evidence: `${clip(operation)} ${clip(payload.path)}` });
  }
  const command = commandOf(type, payload);
  if (command) {
    for (const finding of commandFindings(command)) if (!findings.some((f) => f.rule === finding.rule)) findings.push(finding);
  }
  const secret = secretFinding(payload);
  if (secret) findings.push(secret);
  return findings;
}

/** Gives each new finding its penalty against what the session's rules already took; updates `tally`.
 * Findings past MAX_FINDINGS_PER_RULE are dropped. */
export function scoreFindings(findings: (Finding & { sequence: number })[], tally: RuleTally): ScoredFinding[] {
  const kept: ScoredFinding[] = [];
  for (const finding of findings) {
    const rule = TRUST_RULES[finding.rule];
    const taken = tally.get(finding.rule) ?? { count: 0, penalty: 0 };
    if (taken.count >= MAX_FINDINGS_PER_RULE) continue;
    const penalty = Math.max(0, Math.min(rule.weight, rule.cap - taken.penalty));
    tally.set(finding.rule, { count: taken.count + 1, penalty: taken.penalty + penalty });
    kept.push({ ...finding, severity: rule.severity, weight: rule.weight, penalty });
  }
  return kept;
}

export function trustScore(tally: RuleTally): number {
  let taken = 0;
  for (const { penalty } of tally.values()) taken += penalty;
  return Math.max(0, 100 - taken);
}
