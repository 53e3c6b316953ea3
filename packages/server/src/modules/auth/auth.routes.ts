import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SESSION_COOKIE } from '../../http/auth.js';
import { ErrorResponses } from '../../http/schemas.js';
import type { Authenticator } from './auth.service.js';

/** Dashboard sign-in lives outside /v1: the seed leaves the mechanism out of the API. */
export const authRoutes =
  (auth: Authenticator, secureCookies: boolean): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/auth/login',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['Sessions'],
          summary: 'Sign in (sets the plinth_session cookie)',
          security: [],
          body: Type.Object(
            { email: Type.String({ minLength: 3, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1000 }) },
            { additionalProperties: false },
          ),
          response: { 200: Type.Object({ object: Type.Literal('session'), user_id: Type.String(), expires_at: Type.String() }), ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const session = await auth.login(request.body.email, request.body.password, request.ip);
        reply.setCookie(SESSION_COOKIE, session.token, {
          httpOnly: true,
          sameSite: 'lax',
          secure: secureCookies,
          path: '/',
          expires: session.expiresAt,
        });
        return { object: 'session' as const, user_id: session.userId, expires_at: session.expiresAt.toISOString() };
      },
    );

    app.post(
      '/auth/logout',
      {
        config: { auth: 'public' },
        schema: { tags: ['Sessions'], summary: 'Sign out', security: [], response: { 204: Type.Null(), ...ErrorResponses } },
      },
      async (request, reply) => {
        const token = request.headers.cookie ? request.server.parseCookie(request.headers.cookie)[SESSION_COOKIE] : undefined;
        if (token) await auth.logout(token);
        reply.clearCookie(SESSION_COOKIE, { path: '/' });
        return reply.status(204).send(null);
      },
    );
  };
