// The dependency rules CI checks (`npm run lint:deps`: .dependency-cruiser.cjs, then
// scripts/feature-cycles.mjs) each fire on a file that breaks them, and stay quiet on the imports they
// allow, so none of them can silently become a no-op. Each case is a small tree of files under src/ in
// a temporary directory, cruised with the repository's configuration.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repository = path.resolve(import.meta.dirname, '../..');
const depcruise = path.join(repository, 'node_modules', '.bin', 'depcruise');
const config = path.join(repository, '.dependency-cruiser.cjs');

/** Every file imports the ones it names; `type:` imports only a type. */
const ruleBreakers: Record<string, string[]> = {
  // no-circular, through type-only imports
  'src/core/left.ts': ['type:./right.js'],
  'src/core/right.ts': ['type:./left.js'],
  // no-other-feature-store, top-level and nested; a feature's own store and core's stores are allowed
  'src/alpha/service.ts': ['../beta/store.js', './store.js', '../core/outbox/store.js'],
  'src/alpha/views.ts': ['type:../beta/runs/store.js'],
  'src/alpha/store.ts': [],
  'src/alpha/store.test.ts': ['../beta/store.js'],
  'src/beta/store.ts': [],
  'src/beta/runs/store.ts': [],
  'src/beta/service.ts': ['./store.js', './runs/store.js'],
  'src/core/outbox/store.ts': [],
  // core-not-to-features, runtime-not-to-features, config-not-to-features; config and core may use runtime
  'src/core/hook.ts': ['../alpha/service.js', '../config.js'],
  'src/runtime/driver.ts': ['../beta/service.js', '../core/outbox/store.js'],
  'src/config.ts': ['./alpha/service.js', './runtime/driver.js'],
  // not-to-unresolvable
  'src/gamma/moved.ts': ['./gone.js'],
};

/** Two features importing each other through different files (no file cycle), above one-way layers. */
const featureCycle: Record<string, string[]> = {
  'src/core/errors.ts': ['../config.js'],
  'src/config.ts': ['./runtime/catalog.js'],
  'src/runtime/catalog.ts': [],
  'src/delta/stage.ts': ['../epsilon/service.js', '../core/errors.js'],
  'src/epsilon/service.ts': [],
  'src/epsilon/gate.ts': ['../delta/types.js'],
  'src/delta/types.ts': [],
};

let rulesRoot: string;
let cycleRoot: string;

function write(root: string, tree: Record<string, string[]>): void {
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src/**/*.ts'] }));
  for (const [file, imports] of Object.entries(tree)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    const lines = imports.map((target, index) => (target.startsWith('type:') ? `import type { T${index} } from '${target.slice(5)}';` : `import { v${index} } from '${target}';`));
    fs.writeFileSync(path.join(root, file), `${lines.join('\n')}\nexport type T = number;\nexport const v = 1;\n`);
  }
}

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

beforeAll(() => {
  rulesRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-dependency-rules-'));
  write(rulesRoot, ruleBreakers);
  cycleRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-feature-cycles-'));
  write(cycleRoot, featureCycle);
});

afterAll(() => {
  fs.rmSync(rulesRoot, { recursive: true, force: true });
  fs.rmSync(cycleRoot, { recursive: true, force: true });
});

const cruise = (...extra: string[]) => spawnSync(depcruise, ['src', '--config', config, ...extra], { cwd: rulesRoot, encoding: 'utf8' });
const featureCycles = () => spawnSync(process.execPath, [path.join(repository, 'scripts/feature-cycles.mjs'), cycleRoot], { encoding: 'utf8' });

describe('the dependency rules', () => {
  it('fail the check as CI runs it', () => {
    const check = cruise();
    // depcruise exits with the number of errors.
    expect(check.status, check.stderr).toBe(7);
    expect(check.stdout).toMatch(/x 7 dependency violations \(7 errors/);
  });

  it('name every violation, and nothing the rules allow', () => {
    const report = cruise('--output-type', 'json');
    const violations = (JSON.parse(report.stdout).summary.violations as Violation[]).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
    expect(violations).toEqual(
      [
        // A cycle is reported once, from its first file.
        'no-circular: src/core/left.ts -> src/core/right.ts',
        'no-other-feature-store: src/alpha/service.ts -> src/beta/store.ts',
        'no-other-feature-store: src/alpha/views.ts -> src/beta/runs/store.ts',
        'core-not-to-features: src/core/hook.ts -> src/alpha/service.ts',
        'runtime-not-to-features: src/runtime/driver.ts -> src/beta/service.ts',
        'config-not-to-features: src/config.ts -> src/alpha/service.ts',
        'not-to-unresolvable: src/gamma/moved.ts -> ./gone.js',
      ].sort(),
    );
  });

  it('find a cycle between features that no file cycle shows', () => {
    const check = featureCycles();
    expect(check.status, check.stderr).toBe(1);
    expect(check.stderr).toContain('no-part-cycle: src/delta/ <-> src/epsilon/');
    expect(check.stderr).toContain('src/delta/stage.ts -> src/epsilon/service.ts');
    expect(check.stderr).toContain('src/epsilon/gate.ts -> src/delta/types.ts');
    // Only that one: the features -> core -> config -> runtime layers are one-way.
    expect(check.stderr.match(/no-part-cycle/g)).toHaveLength(1);
  });

  it('find no feature cycle once one side stops importing the other', () => {
    fs.writeFileSync(path.join(cycleRoot, 'src/epsilon/gate.ts'), 'export const v = 1;\n');
    const check = featureCycles();
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
