// HTTP surface of eval scenarios, suites, their runs and recorded results (not in the spec; see docs/evals.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NotFound } from '../core/errors.js';
import { CreateScenarioBody, CreateSuiteBody, EvalResult, IdParams, PageQuery, Scenario, Suite, UpdateScenarioBody, UpdateSuiteBody } from './schemas.js';
import type { EvalService } from './service.js';
import { scenarioView, suiteView } from './views.js';
import { ErrorResponse } from '../core/error-body.js';
import { NoContent } from '../core/schemas.js';

const access = { access: { kind: 'key', area: 'pipelines' } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 429: Err };
const tags = ['evals'];

const SCENARIO_DESCRIPTION =
  "A scenario is a template, a command and weighted checks on the command's exit code and output. Each run creates a fresh sandbox from the template (counted against the plan's concurrent sandboxes), runs the command with `timeout_seconds`, destroys the sandbox, and scores it: score = weight of passed checks / total weight (0-1); the scenario passes when score >= `pass_threshold`.";

export function evalRoutes(service: EvalService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.addSchema(Scenario);
    app.addSchema(Suite);
    app.addSchema(EvalResult);

    app.post('/v1/evals/scenarios', {
      config: { ...access, idempotent: true },
      schema: {
        tags,
        summary: 'Create an eval scenario',
        description: `${SCENARIO_DESCRIPTION} Names are unique per account (409).`,
        body: CreateScenarioBody,
        response: { 201: Type.Ref(Scenario), 409: Err, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.createScenario(request.principal!.accountId, request.body)),
    });

    app.get('/v1/evals/scenarios', {
      config: access,
      schema: {
        tags,
        summary: 'List eval scenarios',
        description: 'Oldest first; `limit` (default 20, max 100) and `offset`.',
        querystring: PageQuery,
        response: { 200: Type.Array(Type.Ref(Scenario)), ...errors },
      },
      handler: async (request) => service.listScenarios(request.principal!.accountId, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 }),
    });

    app.get('/v1/evals/scenarios/:id', {
      config: access,
      schema: { tags, summary: 'Get an eval scenario', params: IdParams, response: { 200: Type.Ref(Scenario), 404: Err, ...errors } },
      handler: async (request) => scenarioView(await service.scenario(request.principal!.accountId, request.params.id)),
    });

    app.put('/v1/evals/scenarios/:id', {
      config: { ...access, idempotent: true },
      schema: {
        tags,
        summary: 'Change an eval scenario',
        description: 'Any of the creation fields; the rest is kept. Recorded results stay, so a changed scenario is compared with the baseline of its earlier versions.',
        params: IdParams,
        body: UpdateScenarioBody,
        response: { 200: Type.Ref(Scenario), 404: Err, 409: Err, ...errors },
      },
      handler: async (request) => service.updateScenario(request.principal!.accountId, request.params.id, request.body),
    });

    app.delete('/v1/evals/scenarios/:id', {
      config: access,
      schema: {
        tags,
        summary: 'Delete an eval scenario',
        description: 'Deletes the scenario and its results. 409 while a suite contains it.',
        params: IdParams,
        response: { 204: NoContent, 404: Err, 409: Err, ...errors },
      },
      handler: async (request, reply) => {
        await service.deleteScenario(request.principal!.accountId, request.params.id);
        return reply.code(204).send();
      },
    });

    app.post('/v1/evals/scenarios/:id/run', {
      config: { ...access, idempotent: true },
      schema: {
        tags,
        summary: 'Run an eval scenario',
        description: "No body. Runs the scenario now and answers 200 with the recorded result once it finished (up to the scenario's timeout plus sandbox creation).",
        params: IdParams,
        response: { 200: Type.Ref(EvalResult), 404: Err, 503: Err, ...errors },
      },
      handler: async (request) => {
        const accountId = request.principal!.accountId;
        return service.run(accountId, { kind: 'scenario', scenario: await service.scenario(accountId, request.params.id) }, { source: 'api' });
      },
    });

    app.get('/v1/evals/scenarios/:id/results', {
      config: access,
      schema: {
        tags,
        summary: 'List results of an eval scenario',
        description: 'Newest first; `limit` (default 20, max 100) and `offset`. Results of suite runs are listed under the suite.',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Type.Array(Type.Ref(EvalResult)), 404: Err, ...errors },
      },
      handler: async (request) => {
        const accountId = request.principal!.accountId;
        const scenario = await service.scenario(accountId, request.params.id);
        return service.listResults(accountId, { kind: 'scenario', scenario }, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 });
      },
    });

    app.post('/v1/evals/suites', {
      config: { ...access, idempotent: true },
      schema: {
        tags,
        summary: 'Create an eval suite',
        description: "An ordered list of the account's scenarios, run one after another. pass_rate = passed scenarios / scenarios; score = mean scenario score. Names are unique per account (409).",
        body: CreateSuiteBody,
        response: { 201: Type.Ref(Suite), 409: Err, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.createSuite(request.principal!.accountId, request.body)),
    });

    app.get('/v1/evals/suites', {
      config: access,
      schema: {
        tags,
        summary: 'List eval suites',
        description: 'Oldest first; `limit` (default 20, max 100) and `offset`.',
        querystring: PageQuery,
        response: { 200: Type.Array(Type.Ref(Suite)), ...errors },
      },
      handler: async (request) => service.listSuites(request.principal!.accountId, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 }),
    });

    app.get('/v1/evals/suites/:id', {
      config: access,
      schema: { tags, summary: 'Get an eval suite', params: IdParams, response: { 200: Type.Ref(Suite), 404: Err, ...errors } },
      handler: async (request) => suiteView(await service.suite(request.principal!.accountId, request.params.id)),
    });

    app.put('/v1/evals/suites/:id', {
      config: { ...access, idempotent: true },
      schema: {
        tags,
        summary: 'Change an eval suite',
        description: 'Any of `name`, `description`, `scenario_ids`.',
        params: IdParams,
        body: UpdateSuiteBody,
        response: { 200: Type.Ref(Suite), 404: Err, 409: Err, ...errors },
      },
      handler: async (request) => service.updateSuite(request.principal!.accountId, request.params.id, request.body),
    });

    app.delete('/v1/evals/suites/:id', {
      config: access,
      schema: { tags, summary: 'Delete an eval suite', description: 'Deletes the suite and its results; its scenarios stay.', params: IdParams, response: { 204: NoContent, 404: Err, ...errors } },
      handler: async (request, reply) => {
        await service.deleteSuite(request.principal!.accountId, request.params.id);
        return reply.code(204).send();
      },
    });

    app.post('/v1/evals/suites/:id/run', {
      config: { ...access, idempotent: true },
      schema: {
        tags,
        summary: 'Run an eval suite',
        description: 'No body. Runs every scenario of the suite in order and answers 200 with the recorded result.',
        params: IdParams,
        response: { 200: Type.Ref(EvalResult), 404: Err, 503: Err, ...errors },
      },
      handler: async (request) => {
        const accountId = request.principal!.accountId;
        const target = await service.resolve(accountId, { suiteId: request.params.id });
        if (!target) throw new NotFound('suite');
        return service.run(accountId, target, { source: 'api' });
      },
    });

    app.get('/v1/evals/suites/:id/results', {
      config: access,
      schema: {
        tags,
        summary: 'List results of an eval suite',
        description: 'Newest first; `limit` (default 20, max 100) and `offset`.',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Type.Array(Type.Ref(EvalResult)), 404: Err, ...errors },
      },
      handler: async (request) => {
        const accountId = request.principal!.accountId;
        const suite = await service.suite(accountId, request.params.id);
        return service.listResults(accountId, { kind: 'suite', suite, scenarios: [] }, { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 });
      },
    });
  };
}
