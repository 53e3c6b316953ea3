import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { idempotentEffect } from '../../http/idempotency.js';
import { ErrorResponses, Timestamp } from '../../http/schemas.js';
import { PageOf, PageQuery, page } from '../../http/pagination.js';
import { ReachQuery } from '../../core/reach.js';
import type { CredentialCache } from '../../core/principal.js';
import type { ProjectRecord } from './projects.repo.js';
import { createProject, getProject, listProjectsFor, patchProject } from './projects.service.js';

const Project = Type.Object(
  {
    object: Type.Literal('project'),
    id: Type.String(),
    org_id: Type.String(),
    name: Type.String(),
    allowed_domains: Type.Array(Type.String(), { description: 'Web origins where the project\'s publishable keys work.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Project' },
);

const toJson = (p: ProjectRecord) => ({
  object: 'project' as const,
  id: p.id,
  org_id: p.orgId,
  name: p.name,
  allowed_domains: p.allowedDomains,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

const Domains = Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 });
const full = { auth: { scope: null } } as const;
const IdParams = Type.Object({ id: Type.String() });

export const projectsRoutes =
  (deps: Deps, auth: CredentialCache): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/projects',
      {
        config: full,
        schema: {
          tags: ['Projects'],
          summary: 'List projects',
          querystring: Type.Object({ ...PageQuery, ...ReachQuery }, { additionalProperties: false }),
          response: { 200: PageOf(Project), ...ErrorResponses },
        },
      },
      async (request) => {
        const { data, total } = await listProjectsFor(deps, request.principal, request.query);
        return page(data.map(toJson), total, request.query);
      },
    );

    app.get(
      '/v1/projects/:id',
      {
        config: full,
        schema: { tags: ['Projects'], summary: 'Retrieve a project', params: IdParams, response: { 200: Project, ...ErrorResponses } },
      },
      async (request) => toJson(await getProject(deps, request.principal, request.params.id)),
    );

    app.post(
      '/v1/projects',
      {
        config: full,
        schema: {
          tags: ['Projects'],
          summary: 'Create a project',
          body: Type.Object(
            { name: Type.String({ minLength: 1, maxLength: 200 }), allowed_domains: Type.Optional(Domains), org_id: Type.Optional(Type.String()) },
            { additionalProperties: false },
          ),
          response: { 201: Project, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const effect = idempotentEffect(request, reply, { status: 201, body: toJson });
        return reply.status(201).send(toJson(await createProject(deps, request.principal, request.body, effect)));
      },
    );

    app.patch(
      '/v1/projects/:id',
      {
        config: full,
        schema: {
          tags: ['Projects'],
          summary: 'Update a project',
          params: IdParams,
          body: Type.Object(
            { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), allowed_domains: Type.Optional(Domains) },
            { additionalProperties: false },
          ),
          response: { 200: Project, ...ErrorResponses },
        },
      },
      async (request) => toJson(await patchProject(deps, auth, request.principal, request.params.id, request.body)),
    );
  };
