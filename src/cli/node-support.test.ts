import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeSupport, SUPPORTED_NODE_MAJORS } from './node-support.js';

describe('nodeSupport', () => {
  it('accepts Node 22 as it is and Node 20 with a note that it is past its end of life', () => {
    expect(nodeSupport('22.23.3')).toEqual({ ok: true, detail: 'v22.23.3' });
    expect(nodeSupport('20.20.2')).toEqual({ ok: true, detail: 'v20.20.2 (supported, but past its end of life; Node.js 22 is the supported LTS)' });
  });

  it('refuses older versions and names the command that installs Node 22', () => {
    const result = nodeSupport('18.20.4');
    expect(result).toMatchObject({ ok: false, detail: 'v18.20.4 is too old (supported: Node.js 22 and 20)' });
    expect(result.fix).toMatch(/^bash scripts\/find-node\.sh 22 /);
  });

  it('runs on newer versions but says the suite does not cover them', () => {
    expect(nodeSupport('24.11.0')).toEqual({ ok: true, detail: 'v24.11.0 (untested: the suite runs on Node.js 22 and 20)' });
  });

  it('states the same versions as package.json engines and the test command', () => {
    const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const engineMajors = (packageJson.engines.node as string).split('||').map((range) => Number(range.trim().replace(/^\^/, '').split('.')[0]));
    expect([...engineMajors].sort()).toEqual([...SUPPORTED_NODE_MAJORS].sort());
    expect(readFileSync(new URL('../../scripts/test.sh', import.meta.url), 'utf8')).toContain(`PADDOCK_TEST_NODES:-${SUPPORTED_NODE_MAJORS.join(' ')}`);
  });
});
