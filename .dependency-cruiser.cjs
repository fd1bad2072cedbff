// The dependency rules CI checks (`npm run lint:deps`, run by scripts/test.sh before the tests).
// A feature is a top-level folder under src/ other than core/ (what every feature uses) and runtime/
// (the isolation seam); src/app.ts and src/cli/ wire features together. A feature reaches another
// through its service or a port the consumer owns, never through the other's store (its tables).
// scripts/feature-cycles.mjs adds the rule this file cannot say: no cycle between features.
// test/core/dependency-rules.test.ts proves each rule fires.

/** A file inside a feature folder: src/<feature>/… with <feature> neither core nor runtime. */
const FEATURE = '^src/(?!core/|runtime/)[^/]+/';
const TEST = '\\.test\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle between files, type-only imports included: a cycle means two files are one job split badly.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-other-feature-store',
      severity: 'error',
      comment: "A feature reaches another through its service (or a port it owns), never through the other's store: each feature keeps to its own tables.",
      from: { path: '^src/([^/]+)/', pathNot: ['^src/(core|runtime)/', TEST] },
      to: { path: '^src/.+/store\\.ts$', pathNot: ['^src/$1/', '^src/(core|runtime)/'] },
    },
    {
      name: 'core-not-to-features',
      severity: 'error',
      comment: 'core/ is what every feature uses; it knows no feature (features plug into it through ports and hooks).',
      from: { path: '^src/core/', pathNot: TEST },
      to: { path: [FEATURE, '^src/app\\.ts$'] },
    },
    {
      name: 'runtime-not-to-features',
      severity: 'error',
      comment: 'runtime/ is the isolation seam below the product: it knows no feature.',
      from: { path: '^src/runtime/', pathNot: TEST },
      to: { path: [FEATURE, '^src/app\\.ts$'] },
    },
    {
      name: 'config-not-to-features',
      severity: 'error',
      comment: 'Features read their settings from config.ts; config.ts imports no feature (types and defaults it needs live in config.ts, core/ or runtime/).',
      from: { path: '^src/config\\.ts$' },
      to: { path: [FEATURE, '^src/app\\.ts$'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file (a path left behind by a move).',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle through types is still a cycle in the design.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Imports name the compiled .js files; resolve them to the .ts sources, and packages by their exports.
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
