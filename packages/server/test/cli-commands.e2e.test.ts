import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, freePort, freshEnv, runCli, tearDown } from './cli-harness.js';

beforeAll(() => ensureBuilt(), 180_000);
afterAll(tearDown, 30_000);

describe('plinth help, version, credits and a busy port', { timeout: 60_000 }, () => {
  it('--version, --help and <command> --help answer without starting anything', async () => {
    const env = await freshEnv();
    const [version, help, serveHelp, creditsHelp] = await Promise.all([
      runCli(['--version'], env),
      runCli(['--help'], env),
      runCli(['serve', '--help'], env),
      runCli(['credits', '-h'], env),
    ]);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^plinth \d+\.\d+\.\d+\n$/) });
    expect(help.code).toBe(0);
    for (const command of ['serve', 'worker', 'migrate', 'bootstrap', 'member', 'credits']) expect(help.stdout).toContain(`  ${command}`);
    expect(serveHelp).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: plinth serve [--no-worker]') });
    expect(creditsHelp).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: plinth credits --org-id ORG') });
  });

  it('credits --add grants with a reason; credits prints the balance and the last entries', async () => {
    const env = await freshEnv();
    const org = JSON.parse((await runCli(['bootstrap', '--org', 'Pilot', '--email', 'p@pilot.test', '--credits', '5', '--json'], env)).stdout);
    const added = await runCli(['credits', '--org-id', org.org_id, '--add', '50', '--reason', 'pilot customer', '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ org_id: org.org_id, added: 50, balance: 55, ledger_entry_id: expect.stringMatching(/^led_/) });
    const statement = await runCli(['credits', '--org-id', org.org_id, '--json'], env);
    const body = JSON.parse(statement.stdout);
    expect(body.balance).toBe(55);
    expect(body.entries.map((e: { delta: number; ref: string }) => [e.delta, e.ref])).toEqual([
      [50, 'pilot customer'],
      [5, 'bootstrap'],
    ]);
    const human = await runCli(['credits', '--org-id', org.org_id], env);
    expect(human.stdout).toContain(`${org.org_id}: 55 credits`);
    expect(human.stdout).toContain('pilot customer');
    const [unknown, bad] = await Promise.all([
      runCli(['credits', '--org-id', 'org_nope', '--add', '5'], env),
      runCli(['credits', '--org-id', org.org_id, '--add', '0'], env),
    ]);
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('no organization org_nope') });
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--add must be a whole number') });
  });

  it('a busy port says which port and how to choose another, before any key is printed', async () => {
    const port = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const env = await freshEnv();
      const run = await runCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(run.stderr).toContain(`PORT=${port + 1}`);
      expect(run.stderr).not.toMatch(/sk_|Secret key|demo organization|\n\s+at /);
      // Nothing was created: the next start on a free port still makes the demo organization.
      const orgs = await runCli(['credits', '--org-id', 'org_none'], env);
      expect(orgs.code).toBe(2);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
