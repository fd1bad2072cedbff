// A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be a
// HELP, a TYPE or a sample of a family declared above it, or the scrape is rejected with the line.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL}=${LABEL_VALUE})(?:,${LABEL}=${LABEL_VALUE})*,?)?\\})? (\\S+)(?: (-?\\d+))?$`);
// Values are what Go's strconv.ParseFloat reads (Prometheus parses them so): NaN and Inf in any case.
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf(?:inity)?|nan)$/i;

function parseValue(text: string): number {
  if (/^[+-]?inf/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  return /^nan$/i.test(text) ? NaN : Number(text);
}
const SUFFIXES: Record<Family['type'], string[]> = { counter: [''], gauge: [''], untyped: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseLabels(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of (text ?? '').matchAll(new RegExp(`(${LABEL})=(${LABEL_VALUE})`, 'g'))) {
    if (match[1] in labels) throw new Error(`label ${match[1]} repeated`);
    labels[match[1]] = unescape(match[2].slice(1, -1));
  }
  return labels;
}

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition must end with a newline');
  for (const [index, line] of lines.slice(0, -1).entries()) {
    const fail = (why: string) => new Error(`line ${index + 1} ${why}: ${JSON.stringify(line)}`);
    if (line === '') continue;
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (help) {
      if (families.get(help[1])?.help) throw fail('repeats a HELP');
      families.set(help[1], { name: help[1], help: help[2], type: families.get(help[1])?.type ?? 'untyped', samples: families.get(help[1])?.samples ?? [] });
    } else if (type) {
      const family = families.get(type[1]);
      if (!family || family.samples.length) throw fail('declares a TYPE after its samples or without HELP');
      family.type = type[2] as Family['type'];
    } else if (line.startsWith('#')) {
      throw fail('is a comment that is neither HELP nor TYPE');
    } else {
      const sample = SAMPLE.exec(line);
      if (!sample || !VALUE.test(sample[3])) throw fail('is not a sample');
      const family = [...families.values()].find((f) => SUFFIXES[f.type].some((suffix) => f.name + suffix === sample[1]));
      if (!family) throw fail('is a sample of no declared family');
      family.samples.push({ name: sample[1], labels: parseLabels(sample[2]), value: parseValue(sample[3]) });
    }
  }
  return families;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when there is none. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const matches = [...families.values()].flatMap((f) => f.samples).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0]?.value;
}
