import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testEnv } from '../src/test/env.js';

/**
 * Shared by the end-to-end tests that run the built `plinth` command as an operator would:
 * separate processes, real ports, the backends of the current vitest project.
 */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'packages/server/bin/plinth.js');
const SRC = join(ROOT, 'packages/server/src');
const DIST = join(ROOT, 'packages/server/dist');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}
export interface Run extends Exit {
  stdout: string;
  stderr: string;
}
export interface CliProcess {
  child: ChildProcess;
  /** Grows while the process runs. */
  out: { stdout: string; stderr: string };
  exited: Promise<Exit>;
}

const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];

function builtFrom(source: string): string {
  return join(DIST, source.slice(SRC.length).replace(/\.ts$/, '.js'));
}

function sourcesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('test-support'))
    .map((f) => join(path, f));
}

/** Otherwise the server under test is not the code under test. */
function distIsCurrent(sources: string[]): boolean {
  if (!existsSync(join(DIST, 'server.js'))) return false;
  return sources
    .flatMap((s) => sourcesUnder(join(SRC, s)))
    .every((src) => {
      const out = builtFrom(src);
      return existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs;
    });
}

/**
 * Builds unless dist/server.js exists and is no older than each of `sources` (paths under
 * packages/server/src; a directory stands for its non-test .ts files).
 */
export async function ensureBuilt(sources: string[] = []): Promise<void> {
  // Every e2e file in both vitest projects may get here at once; only one may run tsc into dist.
  const lock = join(tmpdir(), 'plinth-cli-e2e-build.lock');
  while (!distIsCurrent(sources)) {
    try {
      mkdirSync(lock);
    } catch {
      // A lock left by a killed run would otherwise block every later run until the hook times out.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 200_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!distIsCurrent(sources)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', timeout: 170_000 });
    } catch (err) {
      // tsc still emits when some unrelated file has a type error; what matters is that dist is current.
      if (!distIsCurrent(sources)) {
        // tsc reports on stdout, which execFileSync's own message leaves out.
        const e = err as { stdout?: Buffer; stderr?: Buffer };
        throw new Error(`npm run build failed:\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A data dir (and, on postgres, an empty database) that `tearDown` removes. */
export async function freshEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const { env, cleanup } = await testEnv(extra);
  cleanups.push(cleanup);
  // The developer's own settings must not leak into the CLI and change what is tested.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PLINTH_') && !['DATABASE_URL', 'REDIS_URL', 'STORAGE_URL', 'PUBLIC_URL', 'PORT', 'HOST'].includes(k),
    ),
  ) as Record<string, string>;
  return { ...inherited, ...env };
}

/** Starts `plinth <args>`; `tearDown` kills it if the test does not. */
export function spawnCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, out, exited };
}

/** Runs `plinth <args>` to completion. */
export async function runCli(args: string[], env: Record<string, string>): Promise<Run> {
  const { out, exited } = spawnCli(args, env);
  const exit = await exited;
  return { ...exit, ...out };
}

export interface Served {
  url: string;
  proc: CliProcess;
  /** From the banner printed (on stderr, the terminal) when serve creates a demo organization; null when it did not. */
  demoKey: string | null;
  demoOrg: string | null;
  demoPassword: string | null;
  /** SIGTERM, as a process manager would send it; reports how long the exit took. */
  stop(): Promise<Exit & { ms: number }>;
}

/**
 * `plinth serve` on `port` (a free one by default). Logs at info so readiness is the "plinth is
 * serving" line: the demo banner is written before it on the same pipe, so once it is seen the
 * banner is complete.
 */
export async function startServe(
  env: Record<string, string>,
  { port, args = [], timeoutMs = 45_000 }: { port?: number; args?: string[]; timeoutMs?: number } = {},
): Promise<Served> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawnCli(['serve', ...args], { ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, LOG_LEVEL: 'info' });
  let gone = null as Exit | null;
  void proc.exited.then((e) => (gone = e));
  const deadline = Date.now() + timeoutMs;
  while (!proc.out.stdout.includes('"msg":"plinth is serving"')) {
    const why = gone ? `serve exited (${JSON.stringify(gone)})` : Date.now() > deadline ? `serve did not start within ${timeoutMs} ms` : null;
    if (why) throw new Error(`${why}\nstdout:\n${proc.out.stdout}\nstderr:\n${proc.out.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The banner went to stderr before the log line on stdout; one more turn lets its pipe be read.
  await new Promise((r) => setTimeout(r, 100));
  return {
    url,
    proc,
    demoKey: /Secret key \(shown once\):\s+(sk_\S+)/.exec(proc.out.stderr)?.[1] ?? null,
    demoOrg: /created a demo organization \((org_[^)]+)\)/.exec(proc.out.stderr)?.[1] ?? null,
    demoPassword: /Dashboard sign-in:\s+\S+ \/ (\S+)/.exec(proc.out.stderr)?.[1] ?? null,
    async stop() {
      const started = Date.now();
      proc.child.kill('SIGTERM');
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
      const exit = await proc.exited;
      clearTimeout(timer);
      return { ...exit, ms: Date.now() - started };
    },
  };
}

/** For afterAll: a failed test must not leave a server holding a port or a database. */
export async function tearDown(): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  for (const cleanup of cleanups) await cleanup();
}
