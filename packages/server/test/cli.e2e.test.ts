import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BACKEND } from '../src/test/env.js';
import { ensureBuilt, freshEnv, runCli, startServe, tearDown } from './cli-harness.js';

/**
 * The built `plinth` command, run as an operator would: separate processes, real ports, the
 * backends of this vitest project (SQLite, or a fresh PostgreSQL database per data dir).
 */
const KEYS = ['org_id', 'project_id', 'publishable_key', 'secret_key', 'user_id'];

beforeAll(() => ensureBuilt(), 180_000);

afterAll(tearDown, 30_000);

// Explicit: the vitest projects do not inherit the root testTimeout. Generous, because each CLI start
// costs about a second of CPU and several times that on a loaded CI machine; idle, the file takes ~15 s.
describe(`plinth CLI, end to end (${TEST_BACKEND})`, { timeout: 60_000 }, () => {
  it('bootstrap --json prints the five ids and keys; the same email again reuses the user in a new org', async () => {
    const env = await freshEnv();
    const first = await runCli(['bootstrap', '--org', 'Acme', '--email', 'owner@acme.test', '--plan', 'trial', '--credits', '5', '--json'], env);
    // Not toBe(''): on Node 20 the AWS SDK (S3 storage) adds a process warning to stderr.
    expect(first.stderr).not.toMatch(/^plinth: /m);
    expect(first.code).toBe(0);
    const a = JSON.parse(first.stdout);
    expect(Object.keys(a).sort()).toEqual(KEYS);
    expect(a.org_id).toMatch(/^org_[A-Za-z0-9_-]+$/);
    expect(a.user_id).toMatch(/^usr_[A-Za-z0-9_-]+$/);
    expect(a.secret_key).toMatch(/^sk_[A-Za-z0-9_-]+$/);
    expect(a.project_id).toMatch(/^proj_[A-Za-z0-9_-]+$/);
    expect(a.publishable_key).toMatch(/^pk_[A-Za-z0-9_-]+$/);
    // Only the JSON line: scripts pipe this into jq.
    expect(first.stdout.trim().split('\n')).toHaveLength(1);

    const second = await runCli(
      ['bootstrap', '--org', 'Acme Two', '--email', 'owner@acme.test', '--allowed-domain', 'https://shop.acme.test', '--json'],
      env,
    );
    expect(second.code).toBe(0);
    const b = JSON.parse(second.stdout);
    expect(Object.keys(b).sort()).toEqual(KEYS);
    expect(b.user_id).toBe(a.user_id);
    expect(b.org_id).not.toBe(a.org_id);
    expect(b.project_id).not.toBe(a.project_id);
    expect(b.secret_key).not.toBe(a.secret_key);
  });

  it('bad flags exit with code 2 and say why on stderr', async () => {
    const env = await freshEnv();
    // Each case is a full CLI start (about a second of CPU), so one per distinct code path.
    const cases: Array<[string[], RegExp]> = [
      [['bootstrap', '--email', 'a@b.test', '--json'], /--org is required/],
      [['bootstrap', '--org', 'X', '--json'], /--email is required/],
      [['bootstrap', '--org', 'X', '--email', 'a@b.test', '--plan', 'gold'], /--plan must be one of/],
      [['bootstrap', '--org', 'X', '--email', 'a@b.test', '--credits', 'lots'], /--credits must be a whole number/],
      [['serve', '--bogus'], /bogus/],
      [['frobnicate'], /unknown command "frobnicate"/],
    ];
    const runs = await Promise.all(cases.map(([args]) => runCli(args, env)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i];
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(run.stderr).toMatch(/^plinth: /m);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain('Usage: plinth');
    });
  });

  it('migrate exits 0 on a fresh data dir', async () => {
    const run = await runCli(['migrate'], await freshEnv());
    expect(run.stderr).not.toMatch(/^plinth: /m);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`migrated ${TEST_BACKEND} database\n`);
  });

  it('tried as a new user would: serve prints a demo key, the README curl works, a restart makes no second demo org', async () => {
    const env = await freshEnv();
    const first = await startServe(env);
    expect(first.demoKey).toMatch(/^sk_/);
    expect(first.demoOrg).toMatch(/^org_/);
    expect(first.proc.out.stderr).toContain(`curl -H "Authorization: Bearer ${first.demoKey}" ${first.url}/v1/projects`);
    // The banner points to the dashboard, which answers there.
    expect(first.proc.out.stderr).toContain(`Plinth dashboard: ${first.url}/`);
    expect((await fetch(`${first.url}/`)).headers.get('content-type')).toContain('text/html');
    // The key and the owner's random password go to the terminal once, never into the JSON log on stdout.
    expect(first.demoPassword).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(first.proc.out.stdout).not.toContain(first.demoKey);
    expect(first.proc.out.stdout).not.toContain(first.demoPassword);
    const signIn = (password: string) =>
      fetch(`${first.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'demo@plinth.local', password }) });
    expect((await signIn('demo-password')).status).toBe(401);
    expect((await signIn(first.demoPassword!)).status).toBe(200);

    const res = await fetch(`${first.url}/v1/projects`, { headers: { Authorization: `Bearer ${first.demoKey}` } });
    expect(res.status).toBe(200);
    const list = await res.json();
    expect(list).toMatchObject({ object: 'list', total: 1 });
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ object: 'project', org_id: first.demoOrg, name: 'Default project' });
    expect(list.data[0].id).toMatch(/^proj_/);
    expect(list.data[0].allowed_domains).toContain(first.url);

    const stopped = await first.stop();
    expect(stopped).toMatchObject({ code: 0, signal: null });
    expect(stopped.ms).toBeLessThan(5_000);

    const again = await startServe(env);
    expect(again.demoKey).toBeNull();
    expect(again.proc.out.stdout + again.proc.out.stderr).not.toContain('demo organization');
    // The first start's key still works against the same data: nothing was recreated.
    const res2 = await fetch(`${again.url}/v1/projects`, { headers: { Authorization: `Bearer ${first.demoKey}` } });
    expect(res2.status).toBe(200);
    expect((await res2.json()).data.map((p: { id: string }) => p.id)).toEqual([list.data[0].id]);
    expect(await again.stop()).toMatchObject({ code: 0, signal: null });
  });

  it('serve --no-worker serves the API and GET /v1/health reports every check', async () => {
    const server = await startServe(await freshEnv(), { args: ['--no-worker'] });
    expect(server.demoKey).toMatch(/^sk_/);

    const projects = await fetch(`${server.url}/v1/projects`, { headers: { Authorization: `Bearer ${server.demoKey}` } });
    expect(projects.status).toBe(200);

    // No key: health is public, for load balancers.
    const health = await fetch(`${server.url}/v1/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await health.json();
    expect(body).toMatchObject({ status: 'ok', version: expect.any(String) });
    expect(Object.keys(body.checks).sort()).toEqual(['database', 'jobs', 'storage']);
    for (const check of Object.values(body.checks) as Array<Record<string, unknown>>) {
      expect(check).toMatchObject({ status: 'ok', kind: expect.any(String), latency_ms: expect.any(Number) });
    }
    expect(body.checks.database.kind).toBe(TEST_BACKEND);
    expect(server.proc.out.stdout).toContain('"worker":false');

    const stopped = await server.stop();
    expect(stopped).toMatchObject({ code: 0, signal: null });
    expect(stopped.ms).toBeLessThan(5_000);
  });
});
