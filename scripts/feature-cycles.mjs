// The dependency rule dependency-cruiser cannot say: no import cycle between the top-level parts of
// src/ (each feature folder, core/, runtime/, and the files directly under src/), even when no file
// cycle joins them (evals -> pipelines -> evals through different files was one). Tests are left out:
// a test may import from any feature. Run by `npm run lint:deps` after depcruise, with the same
// configuration; `node scripts/feature-cycles.mjs [dir]` cruises dir (default: the repository).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(process.argv[2] ?? repository);
const depcruise = path.join(repository, 'node_modules', '.bin', 'depcruise');
const config = path.join(repository, '.dependency-cruiser.cjs');

const cruise = spawnSync(depcruise, ['src', '--config', config, '--output-type', 'json', '--exclude', '\\.test\\.ts$'], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
if (cruise.status === null || !cruise.stdout) {
  console.error(`depcruise did not run: ${cruise.error?.message ?? cruise.stderr}`);
  process.exit(2);
}

/** src/<folder>/… -> src/<folder>/; src/<file> -> itself; anything else (packages, Node) -> null. */
function partOf(file) {
  const match = /^src\/[^/]+\/?/.exec(file);
  return match ? match[0] : null;
}

const edges = new Map();
for (const module of JSON.parse(cruise.stdout).modules) {
  const from = partOf(module.source);
  if (!from) continue;
  if (!edges.has(from)) edges.set(from, new Map());
  for (const dependency of module.dependencies) {
    const to = partOf(dependency.resolved);
    if (to && to !== from && !edges.get(from).has(to)) edges.get(from).set(to, `${module.source} -> ${dependency.resolved}`);
  }
}

// Tarjan's strongly connected components: every component of more than one part is a cycle.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
let next = 0;
function visit(part) {
  index.set(part, next);
  low.set(part, next);
  next += 1;
  stack.push(part);
  onStack.add(part);
  for (const to of edges.get(part)?.keys() ?? []) {
    if (!index.has(to)) {
      visit(to);
      low.set(part, Math.min(low.get(part), low.get(to)));
    } else if (onStack.has(to)) low.set(part, Math.min(low.get(part), index.get(to)));
  }
  if (low.get(part) === index.get(part)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== part);
    if (component.length > 1) cycles.push(component.sort());
  }
}
for (const part of [...edges.keys()].sort()) if (!index.has(part)) visit(part);

if (!cycles.length) {
  console.log(`✔ no import cycle between the parts of src/ (${edges.size} parts)`);
  process.exit(0);
}
for (const component of cycles) {
  console.error(`\n  error no-part-cycle: ${component.join(' <-> ')} import each other:`);
  for (const from of component) {
    for (const [to, example] of edges.get(from) ?? []) if (component.includes(to)) console.error(`      ${example}`);
  }
}
console.error(`\nx ${cycles.length} import cycle(s) between the parts of src/: a feature reaches another through its service or a port it owns, one way only.`);
process.exit(1);
