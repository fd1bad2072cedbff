// Request and response shapes of the eval scenario, suite and result endpoints (not in the spec:
// designed after the eval APIs of hosted agent platforms, documented in docs/evals.md).
import { Type, type Static } from '@sinclair/typebox';
import { TEMPLATE_NAMES } from '../runtime/templates/catalog.js';
import { CHECK_TYPES } from './checks.js';
import { StringEnum, LiteralUnion } from '../core/schemas.js';

export const MAX_PAGE_LIMIT = 100;
export const MAX_CHECKS = 50;
export const MAX_SUITE_SCENARIOS = 100;

const Name = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._ -]*$',
  description: 'Unique per account among scenarios (suites have their own namespace). Letters, digits, `.`, `_`, `-` and spaces.',
});
const Description = Type.String({ maxLength: 2000 });
const Env = Type.Record(Type.String(), Type.String({ maxLength: 32_768 }), {
  maxProperties: 100,
  propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' },
  description: 'Environment of the command.',
});
const Stream = Type.Union([Type.Literal('stdout'), Type.Literal('stderr')], { description: 'Which output the check reads; default stdout.' });

export const CheckSchema = Type.Object(
  {
    type: StringEnum(CHECK_TYPES, {
      description:
        '`exit_code` (field `equals`), `output_contains` (`value`), `output_matches` (`pattern`, optional `flags`: a JavaScript regular expression tried on the first 64 KiB of output, for at most 1 s), `output_equals` (`value`, compared after trimming whitespace unless `trim` is false).',
    }),
    weight: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: 'Share of the scenario score; default 1. score = sum of weights of passed checks / sum of all weights.' })),
    equals: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
    value: Type.Optional(Type.String({ maxLength: 65_536 })),
    pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    flags: Type.Optional(Type.String({ pattern: '^[imsu]{0,4}$', description: 'Any of i, m, s, u.' })),
    trim: Type.Optional(Type.Boolean()),
    stream: Type.Optional(Stream),
  },
  { additionalProperties: false },
);

// No `default` keywords: the validator would fill them into partial updates too; the service applies defaults.
const scenarioFields = {
  name: Name,
  description: Type.Optional(Description),
  template: LiteralUnion(TEMPLATE_NAMES, { description: 'Sandbox template the scenario runs in; a fresh sandbox per run, destroyed after.' }),
  command: Type.String({ minLength: 1, maxLength: 100_000, description: 'Run with /bin/sh -c in the sandbox; its exit code, stdout and stderr are what the checks read.' }),
  env: Type.Optional(Env),
  network_mode: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('full')], { description: 'Network of the scenario sandbox; default `none` so runs are reproducible.' })),
  timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300, description: 'The command is killed after it (exit code 124); the checks still apply.' })),
  checks: Type.Array(CheckSchema, { minItems: 1, maxItems: MAX_CHECKS }),
  pass_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'The scenario passes when its score is at least this; default 1.0 (every check).' })),
};

export const CreateScenarioBody = Type.Object(scenarioFields, { additionalProperties: false });
export type CreateScenarioInput = Static<typeof CreateScenarioBody>;
export const UpdateScenarioBody = Type.Partial(Type.Object(scenarioFields), { additionalProperties: false, minProperties: 1 });
export type UpdateScenarioInput = Static<typeof UpdateScenarioBody>;

export const Scenario = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    template: Type.String(),
    command: Type.String(),
    env: Type.Record(Type.String(), Type.String()),
    network_mode: Type.String(),
    timeout_seconds: Type.Integer(),
    checks: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    pass_threshold: Type.Number(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'EvalScenario' },
);

const suiteFields = {
  name: Name,
  description: Type.Optional(Description),
  scenario_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    minItems: 1,
    maxItems: MAX_SUITE_SCENARIOS,
    uniqueItems: true,
    description: 'Scenarios of this account, run one after another in this order.',
  }),
};
export const CreateSuiteBody = Type.Object(suiteFields, { additionalProperties: false });
export type CreateSuiteInput = Static<typeof CreateSuiteBody>;
export const UpdateSuiteBody = Type.Partial(Type.Object(suiteFields), { additionalProperties: false, minProperties: 1 });
export type UpdateSuiteInput = Static<typeof UpdateSuiteBody>;

export const Suite = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    scenario_ids: Type.Array(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'EvalSuite' },
);

const CheckResult = Type.Object({ type: Type.String(), weight: Type.Number(), passed: Type.Boolean(), expected: Type.String(), actual: Type.String() });

export const ScenarioResult = Type.Object({
  scenario_id: Type.String(),
  name: Type.String(),
  status: StringEnum(['passed', 'failed', 'errored'], { description: '`errored`: the scenario could not run (sandbox creation or infrastructure failure, or the run was stopped); its score is 0.' }),
  score: Type.Number(),
  exit_code: Type.Union([Type.Integer(), Type.Null()]),
  timed_out: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
  checks: Type.Array(CheckResult),
  cost_usd: Type.Number(),
  duration_ms: Type.Integer(),
  sandbox_id: Type.Union([Type.String(), Type.Null()]),
});

export const EvalResult = Type.Object(
  {
    id: Type.String(),
    scenario_id: Type.Union([Type.String(), Type.Null()]),
    suite_id: Type.Union([Type.String(), Type.Null()]),
    status: StringEnum(['passed', 'failed', 'errored'], { description: '`errored` if any scenario errored, else `passed` if every scenario passed, else `failed`.' }),
    pass_rate: Type.Number({ description: 'Passed scenarios / scenarios run.' }),
    score: Type.Number({ description: 'Mean of the scenario scores.' }),
    cost_usd: Type.Number({ description: "Cost of the run's sandboxes (see docs/evals.md)." }),
    source: StringEnum(['api', 'pipeline']),
    pipeline_run_id: Type.Union([Type.String(), Type.Null()]),
    stage_name: Type.Union([Type.String(), Type.Null()]),
    duration_ms: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    scenarios: Type.Array(ScenarioResult),
  },
  { $id: 'EvalResult' },
);

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);
export type PageInput = Static<typeof PageQuery>;
