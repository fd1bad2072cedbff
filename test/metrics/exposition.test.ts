// The exposition reader the metrics tests rely on refuses what Prometheus would refuse.
import { describe, expect, it } from 'vitest';
import { parseExposition, valueOf } from './exposition.js';

describe('the exposition reader', () => {
  it('reads families, labels (escaped) and special values', () => {
    const families = parseExposition(
      ['# HELP a_total A counter.', '# TYPE a_total counter', 'a_total{route="/x/:id",q="say \\"hi\\"\\n"} 3', '# HELP g A gauge.', '# TYPE g gauge', 'g Nan', 'g{x="1"} +Inf', ''].join('\n'),
    );
    expect(families.get('a_total')).toMatchObject({ type: 'counter', help: 'A counter.' });
    expect(valueOf(families, 'a_total', { route: '/x/:id', q: 'say "hi"\n' })).toBe(3);
    expect(valueOf(families, 'g', { x: '1' })).toBe(Infinity);
  });

  it('refuses what is not exposition', () => {
    const head = '# HELP a A gauge.\n# TYPE a gauge\n';
    expect(() => parseExposition(`${head}a 1`)).toThrow(/end with a newline/);
    expect(() => parseExposition(`${head}a one\n`)).toThrow(/not a sample/);
    expect(() => parseExposition(`${head}a{x=1} 1\n`)).toThrow(/not a sample/);
    expect(() => parseExposition(`${head}b 1\n`)).toThrow(/no declared family/);
    expect(() => parseExposition(`${head}// a comment\n`)).toThrow(/not a sample/);
    expect(() => parseExposition(`${head}# note\n`)).toThrow(/neither HELP nor TYPE/);
    expect(() => parseExposition(`${head}a 1\n# TYPE a counter\n`)).toThrow(/TYPE after its samples/);
  });
});
