import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { idempotentEffect } from '../../http/idempotency.js';
import { PageOf, PageQuery, page } from '../../http/pagination.js';
import { ReachQuery } from '../../core/reach.js';
import { ErrorResponses, Timestamp } from '../../http/schemas.js';
import { experimentJson, resultsJson } from './experiments.json.js';
import {
  createExperiment,
  deleteExperiment,
  experimentResults,
  getExperiment,
  listExperimentsFor,
  renameExperiment,
  stopExperiment,
} from './experiments.service.js';

const tags = ['Experiments'];
/** Reading experiments is reading analytics; starting or stopping one changes what product pages show. */
const read = { auth: { scope: 'usage:read' } } as const;
const write = { auth: { scope: 'products:write' } } as const;
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const OrgQuery = Type.Object({ org_id: Type.Optional(Type.String()) }, { additionalProperties: false });
const Weight = Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 });
const Arms = Type.Object({ '3d': Weight, poster: Weight }, { additionalProperties: false, description: 'Share of viewers per arm; they add up to 1.' });
const Status = Type.Union([Type.Literal('running'), Type.Literal('stopped')]);
const Rate = Type.Number({ minimum: 0, maximum: 1 });
const Interval = Type.Object({ lower: Type.Number(), upper: Type.Number() });

export const ExperimentSchema = Type.Object(
  {
    object: Type.Literal('experiment'),
    id: Type.String({ description: '`expt_…`' }),
    org_id: Type.String(),
    name: Type.String(),
    status: Status,
    arms: Arms,
    product_ids: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every product of the organization.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    stopped_at: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'Experiment' },
);

export const ExperimentResultsSchema = Type.Object(
  {
    object: Type.Literal('experiment_results'),
    experiment_id: Type.String(),
    status: Status,
    computed_at: Timestamp,
    arms: Type.Array(
      Type.Object({
        arm: Type.Union([Type.Literal('3d'), Type.Literal('poster')]),
        weight: Type.Number(),
        viewers: Type.Integer({ minimum: 0 }),
        converters: Type.Integer({ minimum: 0, description: 'Viewers with at least one conversion.' }),
        conversion_rate: Type.Union([Rate, Type.Null()]),
        interval: Type.Union([Interval, Type.Null()], { description: '95% Wilson interval of the conversion rate.' }),
        value: Type.Number({ description: 'Summed value of the converters’ conversions.' }),
      }),
    ),
    lift: Type.Union([Type.Object({ estimate: Type.Number(), lower: Type.Number(), upper: Type.Number() }), Type.Null()], {
      description: 'Relative lift of 3d over poster, rate(3d)/rate(poster) − 1, with a 95% interval (delta method on the log ratio); null until both arms converted.',
    }),
    p_value: Type.Union([Rate, Type.Null()], { description: 'Two-sided p-value of the pooled two-proportion z-test.' }),
    verdict: Type.Union([Type.Literal('3d_better'), Type.Literal('poster_better'), Type.Null()], { description: 'Only when the lift’s interval excludes 0.' }),
  },
  { title: 'ExperimentResults' },
);

export const experimentsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/experiments',
      {
        config: write,
        schema: {
          tags,
          summary: 'Start an experiment',
          description:
            '3D against the plain product image: while it runs, `<service-model>` shows each viewer one arm, chosen by a stable hash of ' +
            'the viewer id and the experiment id. A product is in at most one running experiment (409 `conflict`, reason `experiment_running`).',
          querystring: OrgQuery,
          body: Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 200 }),
              product_ids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 100, description: 'Omitted: every product.' })),
              arms: Arms,
              org_id: Type.Optional(Type.String()),
            },
            { additionalProperties: false },
          ),
          response: { 201: ExperimentSchema, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const body = { ...request.body, org_id: request.body.org_id ?? request.query.org_id };
        const effect = idempotentEffect(request, reply, { status: 201, body: experimentJson, location: (e) => `/v1/experiments/${e.id}` });
        const created = await createExperiment(deps, request.principal, body, effect);
        return reply.status(201).header('Location', `/v1/experiments/${created.id}`).send(experimentJson(created));
      },
    );

    app.get(
      '/v1/experiments',
      {
        config: read,
        schema: {
          tags,
          summary: 'List experiments',
          querystring: Type.Object({ ...PageQuery, ...ReachQuery, status: Type.Optional(Status) }, { additionalProperties: false }),
          response: { 200: PageOf(ExperimentSchema), ...ErrorResponses },
        },
      },
      async (request) => {
        const { data, total } = await listExperimentsFor(deps, request.principal, request.query);
        return page(data.map(experimentJson), total, request.query);
      },
    );

    app.get(
      '/v1/experiments/:id',
      { config: read, schema: { tags, summary: 'Retrieve an experiment', params: IdParams, querystring: OrgQuery, response: { 200: ExperimentSchema, ...ErrorResponses } } },
      async (request) => experimentJson(await getExperiment(deps, request.principal, request.params.id, request.query.org_id)),
    );

    app.patch(
      '/v1/experiments/:id',
      {
        config: write,
        schema: {
          tags,
          summary: 'Rename an experiment',
          description: 'Only the name changes; arms and products are fixed while viewers are assigned by them.',
          params: IdParams,
          querystring: OrgQuery,
          body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
          response: { 200: ExperimentSchema, ...ErrorResponses },
        },
      },
      async (request) => experimentJson(await renameExperiment(deps, request.principal, request.params.id, request.body.name, request.query.org_id)),
    );

    app.post(
      '/v1/experiments/:id/stop',
      {
        config: write,
        schema: {
          tags,
          summary: 'Stop an experiment',
          operationId: 'stopExperiment',
          description: 'Every viewer sees the 3D viewer again; the webhook event `experiment.completed` carries the final results. A stopped one answers 409 `conflict` (reason `experiment_stopped`).',
          params: IdParams,
          querystring: OrgQuery,
          response: { 200: ExperimentSchema, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const effect = idempotentEffect(request, reply, { status: 200, body: experimentJson });
        return experimentJson(await stopExperiment(deps, request.principal, request.params.id, request.query.org_id, effect));
      },
    );

    app.delete(
      '/v1/experiments/:id',
      {
        config: write,
        schema: {
          tags,
          summary: 'Delete an experiment',
          description: 'Its events stay counted in usage.',
          params: IdParams,
          querystring: OrgQuery,
          response: { 200: Type.Object({ object: Type.Literal('experiment'), id: Type.String(), deleted: Type.Literal(true) }), ...ErrorResponses },
        },
      },
      async (request) => {
        await deleteExperiment(deps, request.principal, request.params.id, request.query.org_id);
        return { object: 'experiment' as const, id: request.params.id, deleted: true as const };
      },
    );

    app.get(
      '/v1/experiments/:id/results',
      {
        config: read,
        schema: {
          tags,
          summary: 'Experiment results',
          operationId: 'retrieveExperimentResults',
          description:
            'Computed from raw events per viewer id: per arm the viewers, the viewers who converted (a conversion from the page or the shop’s server, ' +
            'between the start and the stop), the rate with its 95% Wilson interval and the summed value; then the relative lift of 3d over poster with ' +
            'its 95% interval, the two-sided p-value, and a verdict only when the interval excludes 0. Raw events are kept PLINTH_BEACON_RETENTION_DAYS.',
          params: IdParams,
          querystring: OrgQuery,
          response: { 200: ExperimentResultsSchema, ...ErrorResponses },
        },
      },
      async (request) => resultsJson(await experimentResults(deps, request.principal, request.params.id, request.query.org_id)),
    );
  };
