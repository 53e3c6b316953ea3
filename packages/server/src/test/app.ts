import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig, type Config } from '../config.js';
import { closeDeps, createDeps, type Deps } from '../deps.js';
import { createLogger } from '../logger.js';
import { addMember, bootstrap, type BootstrapInput, type BootstrapResult } from '../modules/orgs/orgs.service.js';
import { testEnv } from './env.js';

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  config: Readonly<Config>;
  /** first organization, made by bootstrap */
  org: BootstrapResult;
  bootstrap(input?: Partial<BootstrapInput>): Promise<BootstrapResult>;
  member(orgId: string, role: 'owner' | 'admin' | 'member'): Promise<{ email: string; password: string; userId: string }>;
  close(): Promise<void>;
}

let counter = 0;

/** A real app on this run's backends (SQLite or PostgreSQL + S3 + Redis), in a temp data dir. */
export async function createTestApp(env: Record<string, string> = {}, overrides: Partial<Deps> = {}): Promise<TestApp> {
  const t = await testEnv({ PLINTH_RATE_LIMITS: 'off', ...env });
  const config = loadConfig(t.env);
  const deps = await createDeps(config, createLogger(config.logLevel), overrides);
  const app = await buildApp(deps);
  await app.ready();
  const boot = (input: Partial<BootstrapInput> = {}) =>
    bootstrap(deps, {
      org: `Org ${++counter}`,
      email: `owner${counter}-${Date.now()}@example.test`,
      password: 'correct horse battery',
      credits: 1000,
      allowedDomains: ['https://shop.example', 'https://*.brand.example'],
      ...input,
    });
  const org = await boot();
  return {
    app,
    deps,
    config,
    org,
    bootstrap: boot,
    async member(orgId, role) {
      const email = `${role}${++counter}-${Date.now()}@example.test`;
      const password = 'member password 1';
      const { user_id } = await addMember(deps, { orgId, email, password, role });
      return { email, password, userId: user_id };
    },
    async close() {
      await app.close();
      await closeDeps(deps);
      await t.cleanup();
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Signs in through the real route and returns the cookie header. */
export async function sessionCookie(app: FastifyInstance, email: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === 'plinth_session');
  return `plinth_session=${cookie!.value}`;
}

/** One JSON request with a key (the first organization's secret key unless given). */
export function send(t: TestApp, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, key = t.org.secret_key) {
  return t.app.inject({ method, url, headers: bearer(key), ...(payload && { payload }) });
}
