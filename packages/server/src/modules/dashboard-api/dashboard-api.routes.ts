import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { PageOf, PageQuery, page } from '../../http/pagination.js';
import { ErrorResponses } from '../../http/schemas.js';
import { finishedPreview, imageCompliance } from './dashboard-api.preview.js';
import { MAX_FILL, MIN_FILL } from '@plinth/media';
import { PresetSchema } from '../assets/index.js';
import { ComplianceSchema } from '../products/index.js';
import { addOrgMember, changeRole, credits, listMembers, me, removeMember } from './dashboard-api.service.js';

const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
const Member = Type.Object(
  { user_id: Type.String(), email: Type.String(), role: RoleSchema, created_at: Type.String() },
  { title: 'Member' },
);
const LedgerEntry = Type.Object(
  {
    id: Type.String(),
    delta: Type.Integer(),
    balance_after: Type.Integer(),
    reason: Type.String(),
    ref: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
  },
  { title: 'CreditLedgerEntry' },
);
const OrgParams = Type.Object({ org_id: Type.String({ maxLength: 100 }) });
const MemberParams = Type.Object({ org_id: Type.String({ maxLength: 100 }), user_id: Type.String({ maxLength: 100 }) });
const tags = ['Dashboard'];
/** Session only: scope null keeps scoped keys out at once; the service refuses full-access keys too. */
const config = { auth: { scope: null } };

/**
 * What /v1 leaves out and the dashboard needs: who is signed in, their organizations, members and
 * credits. Another organization's id is 404; changing members takes the owner or admin role.
 */
export const dashboardApiRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/dashboard/api/me',
      {
        config,
        schema: {
          tags,
          summary: 'The signed-in user and their organizations',
          response: {
            200: Type.Object({
              object: Type.Literal('me'),
              user: Type.Object({ id: Type.String(), email: Type.String() }),
              organizations: Type.Array(
                Type.Object({ id: Type.String(), name: Type.String(), role: RoleSchema, plan: Type.String(), credit_balance: Type.Integer() }),
              ),
            }),
            ...ErrorResponses,
          },
        },
      },
      async (request) => me(deps, request.principal),
    );

    app.get(
      '/dashboard/api/organizations/:org_id/members',
      {
        config,
        schema: { tags, summary: 'Members of an organization', params: OrgParams, querystring: Type.Object(PageQuery), response: { 200: PageOf(Member), ...ErrorResponses } },
      },
      async (request) => {
        const { rows, total } = await listMembers(deps, request.principal, request.params.org_id, request.query);
        return page(rows, total, request.query);
      },
    );

    app.post(
      '/dashboard/api/organizations/:org_id/members',
      {
        config,
        schema: {
          tags,
          summary: 'Add a member (owners and admins)',
          params: OrgParams,
          body: Type.Object(
            {
              email: Type.String({ format: 'email', maxLength: 320 }),
              role: RoleSchema,
              password: Type.Optional(Type.String({ minLength: 10, maxLength: 1000, description: 'Sets the password of a new user only.' })),
            },
            { additionalProperties: false },
          ),
          response: { 201: Type.Object({ user_id: Type.String(), email: Type.String(), role: RoleSchema }), ...ErrorResponses },
        },
      },
      async (request, reply) => reply.status(201).send(await addOrgMember(deps, request.principal, request.params.org_id, request.body)),
    );

    app.patch(
      '/dashboard/api/organizations/:org_id/members/:user_id',
      {
        config,
        schema: {
          tags,
          summary: "Change a member's role (owners and admins)",
          params: MemberParams,
          body: Type.Object({ role: RoleSchema }, { additionalProperties: false }),
          response: { 200: Type.Object({ user_id: Type.String(), role: RoleSchema }), ...ErrorResponses },
        },
      },
      async (request) => changeRole(deps, request.principal, request.params.org_id, request.params.user_id, request.body.role),
    );

    app.delete(
      '/dashboard/api/organizations/:org_id/members/:user_id',
      {
        config,
        schema: { tags, summary: 'Remove a member (owners and admins)', params: MemberParams, response: { 204: Type.Null(), ...ErrorResponses } },
      },
      async (request, reply) => {
        await removeMember(deps, request.principal, request.params.org_id, request.params.user_id);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/dashboard/api/organizations/:org_id/credits',
      {
        config,
        schema: {
          tags,
          summary: 'Credit balance and ledger',
          params: OrgParams,
          querystring: Type.Object(PageQuery),
          response: {
            200: Type.Object({ object: Type.Literal('credits'), balance: Type.Integer(), plan: Type.String(), ledger: PageOf(LedgerEntry) }),
            ...ErrorResponses,
          },
        },
      },
      async (request) => {
        const c = await credits(deps, request.principal, request.params.org_id, request.query);
        return { object: 'credits' as const, balance: c.balance, plan: c.plan, ledger: page(c.ledger.rows, c.ledger.total, request.query) };
      },
    );

    app.get(
      '/dashboard/api/products/:product_id/images/:image_id/preview',
      {
        config,
        schema: {
          tags,
          summary: 'Preview an image finished with unsaved settings',
          description: 'The finished image (cut out, on the background, with its shadow and padding) at preview size; JPEG, or PNG when transparent.',
          params: Type.Object({ product_id: Type.String({ maxLength: 100 }), image_id: Type.String({ maxLength: 100 }) }),
          querystring: Type.Object(
            {
              background: Type.Optional(Type.String({ pattern: '^(#[0-9a-fA-F]{6}|transparent)$', description: "default the preset's, else #ffffff" })),
              shadow: Type.Union([Type.Literal('none'), Type.Literal('soft'), Type.Literal('hard'), Type.Literal('contact')], { default: 'soft' }),
              padding: Type.Optional(Type.Number({ minimum: 0, maximum: 0.45 })),
              preset: Type.Optional(PresetSchema),
              fill: Type.Optional(Type.Number({ minimum: MIN_FILL, maximum: MAX_FILL })),
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Any({ description: 'image/jpeg or image/png' }), ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const { product_id, image_id } = request.params;
        const image = await finishedPreview(deps, request.principal, product_id, image_id, request.query);
        // The URL names the settings and an image's pixels never change, so the browser may keep it.
        reply.header('Cache-Control', 'private, max-age=3600');
        return reply.type(image.contentType).send(image.data);
      },
    );

    app.post(
      '/dashboard/api/products/:product_id/images/:image_id/compliance',
      {
        config,
        schema: {
          tags,
          summary: "Check an image against its preset's rules now",
          description: "Finishes the image with its saved settings at full size (or takes it from the export cache), measures it, records the result as the image's compliance and returns it.",
          params: Type.Object({ product_id: Type.String({ maxLength: 100 }), image_id: Type.String({ maxLength: 100 }) }),
          response: { 200: ComplianceSchema, ...ErrorResponses },
        },
      },
      async (request) => imageCompliance(deps, request.principal, request.params.product_id, request.params.image_id),
    );
  };
