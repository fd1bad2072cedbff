// The short fuzzing run of every C parser (scripts/fuzz-c.sh): each libFuzzer target under ASan and
// UBSan replays its checked-in corpus, crashes found before included, then fuzzes for a few seconds.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const secondsPerTarget = 3;
const targets = ['relay', 'agent'].flatMap((program) =>
  readdirSync(`${program}/fuzz`, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.c'))
    .map((entry) => ({ program, target: entry.name.slice(0, -2) })),
);

describe('fuzzing the C parsers', () => {
  it('has a target and a seed corpus for the relay framing, cookies, base64, Node messages and the agent request', () => {
    expect(targets.map(({ program, target }) => `${program}/${target}`).sort()).toEqual([
      'agent/request',
      'relay/answers',
      'relay/base64',
      'relay/body',
      'relay/channel',
      'relay/cookie',
      'relay/request_head',
    ]);
    for (const { program, target } of targets) expect(readdirSync(`${program}/fuzz/corpus/${target}`).length, `${program}/${target}`).toBeGreaterThan(0);
  });

  it.each(targets.map(({ program, target }) => ({ name: `${program}/${target}`, target })))(
    'finds no crash, leak or undefined behaviour in $name',
    ({ target }) => {
      const run = spawnSync('bash', ['scripts/fuzz-c.sh', String(secondsPerTarget), target], { encoding: 'utf8' });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/number_of_executed_units: [1-9]/);
    },
    120_000,
  );
});
