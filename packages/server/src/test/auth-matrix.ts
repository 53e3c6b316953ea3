import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { bearer, createTestApp, sessionCookie, type TestApp } from './app.js';

export interface MatrixContext {
  t: TestApp;
  /** a full-access secret key of organization A */
  keyA: string;
  orgA: string;
  /** ids created in organization A by the endpoint's setup */
  ids: Record<string, string>;
}

export interface MatrixEndpoint {
  name: string;
  /** the request, for org A's resource ids */
  request(ctx: MatrixContext): InjectOptions;
  /** a scope the endpoint needs (null: needs a key without scope restriction) */
  scope: string | null;
  /** true for the two routes a publishable key may call */
  publishable?: boolean;
  /** false for the routes that take no dashboard session */
  session?: false;
  /** for routes with an id: the same request naming organization B's resource, and an unknown id */
  otherOrg?(ctx: MatrixContext & { idsB: Record<string, string> }): InjectOptions;
  unknownId?(ctx: MatrixContext): InjectOptions;
  /** creates resources in an organization (A, and B for the tenancy check) */
  setup?(t: TestApp, key: string, orgId: string): Promise<Record<string, string>>;
}

/**
 * The security cases every endpoint must pass: no key, bad key, revoked key (401); publishable key
 * and wrong scope (403); another organization's id (404, same shape as an unknown id), asked with a key
 * and with a session of an owner of the other organization.
 */
export function authMatrix(area: string, endpoints: MatrixEndpoint[]) {
  describe(`${area}: auth matrix`, () => {
    let ctx: MatrixContext;
    let idsB: Record<string, string> = {};
    let revoked: string;
    let usageOnly: string;
    let productsOnly: string;
    let narrow: string;
    let publishable: string;
    /** the session cookie of organization B's owner, who is no member of A */
    let sessionB: string;

    beforeAll(async () => {
      const t = await createTestApp();
      const keyA = t.org.secret_key;
      const ownerB = { email: `matrix-owner-${Date.now()}@example.test`, password: 'owner b password' };
      const b = await t.bootstrap(ownerB);
      sessionB = await sessionCookie(t.app, ownerB.email, ownerB.password);
      ctx = { t, keyA, orgA: t.org.org_id, ids: {} };
      for (const e of endpoints) {
        if (e.setup) Object.assign(ctx.ids, await e.setup(t, keyA, t.org.org_id));
        if (e.setup) Object.assign(idsB, await e.setup(t, b.secret_key, b.org_id));
      }
      const make = async (body: object) => {
        const res = await t.app.inject({ method: 'POST', url: '/v1/api_keys', headers: bearer(keyA), payload: body });
        expect(res.statusCode).toBe(201);
        return res.json() as { id: string; key: string };
      };
      const r = await make({ name: 'to revoke' });
      const del = await t.app.inject({ method: 'DELETE', url: `/v1/api_keys/${r.id}`, headers: bearer(keyA) });
      expect(del.statusCode).toBe(200);
      revoked = r.key;
      publishable = t.org.publishable_key;
      usageOnly = (await make({ scopes: ['usage:read'] })).key;
      productsOnly = (await make({ scopes: ['products:read'] })).key;
      narrow = (await make({ scopes: ['products:read', 'products:write', 'webhooks:manage', 'beacon:write', 'usage:read'] })).key;
    });
    afterAll(async () => ctx?.t.close());

    const call = (e: MatrixEndpoint, headers: Record<string, string> | undefined) => {
      const req = e.request(ctx);
      return ctx.t.app.inject({ ...req, headers: { ...(req.headers as object), ...(headers ?? {}) } });
    };
    const expectError = (res: { statusCode: number; json(): any }, status: number, code: string) => {
      expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
      expect(res.json().error.code).toBe(code);
      expect(typeof res.json().error.request_id).toBe('string');
    };

    for (const e of endpoints) {
      describe(e.name, () => {
        it('no key: 401', async () => expectError(await call(e, {}), 401, 'unauthenticated'));
        it('unknown key: 401', async () => expectError(await call(e, bearer('sk_' + 'x'.repeat(32))), 401, 'unauthenticated'));
        it('malformed Authorization: 401', async () => expectError(await call(e, { authorization: 'Basic abc' }), 401, 'unauthenticated'));
        it('revoked key: 401', async () => expectError(await call(e, bearer(revoked)), 401, 'unauthenticated'));
        if (!e.publishable) {
          it('publishable key: 403', async () => {
            const res = await call(e, { ...bearer(publishable), origin: 'https://shop.example' });
            expectError(res, 403, 'forbidden');
            expect(res.json().error.details.reason).toBe('scope');
          });
        }
        it('key without the scope: 403 scope', async () => {
          const res = await call(e, bearer(e.scope === 'usage:read' ? productsOnly : usageOnly));
          expectError(res, 403, 'forbidden');
          expect(res.json().error.details.reason).toBe('scope');
        });
        if (e.scope === null) {
          it('a key restricted to every scope is still refused (needs full access)', async () =>
            expectError(await call(e, bearer(narrow)), 403, 'forbidden'));
        }
        if (e.otherOrg && e.unknownId) {
          it("another organization's id: 404, same shape as an unknown id", async () => {
            const other = await ctx.t.app.inject(mergeAuth(e.otherOrg!({ ...ctx, idsB }), ctx.keyA));
            const unknown = await ctx.t.app.inject(mergeAuth(e.unknownId!(ctx), ctx.keyA));
            expectError(other, 404, 'not_found');
            expectError(unknown, 404, 'not_found');
            const strip = (b: any) => ({ ...b.error, request_id: undefined, message: undefined });
            expect(strip(other.json())).toEqual(strip(unknown.json()));
            expect(Object.keys(other.json().error).sort()).toEqual(Object.keys(unknown.json().error).sort());
          });
          // The same request from the other side: B's owner, signed in, names A's resource.
          it(e.session === false ? 'a session is not accepted here: 401' : "another organization's session naming this organization's id: 404", async () => {
            const req = e.otherOrg!({ ...ctx, idsB: ctx.ids });
            const res = await ctx.t.app.inject({ ...req, headers: { ...(req.headers as object), cookie: sessionB } });
            if (e.session === false) expectError(res, 401, 'unauthenticated');
            else expectError(res, 404, 'not_found');
          });
        }
      });
    }

  });
}

function mergeAuth(req: InjectOptions, key: string): InjectOptions {
  return { ...req, headers: { ...(req.headers as object), ...bearer(key) } };
}

/**
 * The three requests of a route naming one resource: organization A's (its setup's ids[idKey]), B's, and an
 * unknown id. `url` builds the path from the id.
 */
export function byId(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: (id: string) => string,
  opts: { idKey: string; unknown: string; setup: NonNullable<MatrixEndpoint['setup']>; payload?: object },
): Pick<MatrixEndpoint, 'setup' | 'request' | 'otherOrg' | 'unknownId'> {
  const at = (id: string): InjectOptions => ({ method, url: url(id), ...(opts.payload && { payload: opts.payload }) });
  return {
    setup: opts.setup,
    request: (c) => at(c.ids[opts.idKey]),
    otherOrg: (c) => at(c.idsB[opts.idKey]),
    unknownId: () => at(opts.unknown),
  };
}
