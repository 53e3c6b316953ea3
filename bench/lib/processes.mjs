// Child processes, ports and temp dirs for benchmarks, with cleanup that runs however the
// benchmark ends: a server left behind would skew the next run and hold its port.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { treeCpuSeconds } from './memory.mjs';

const children = new Set();
const tempDirs = new Set();
let hooksInstalled = false;

function killEverythingNow() {
  // Only synchronous work is possible in an 'exit' handler, hence SIGKILL rather than a polite stop.
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

function installHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killEverythingNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      killEverythingNow();
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
  process.on('uncaughtException', (err) => {
    console.error(err);
    killEverythingNow();
    process.exit(1);
  });
  process.on('unhandledRejection', (err) => {
    console.error(err);
    killEverythingNow();
    process.exit(1);
  });
}

/** A directory removed when the benchmark exits (or earlier through the returned remove()). */
export function tempDir(prefix = 'plinth-bench-') {
  installHooks();
  const path = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(path);
  return {
    path,
    remove() {
      tempDirs.delete(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** A port the OS just handed out; another process could take it in between, which is rare enough here. */
export async function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Spawns a child that is killed when this process exits. stdout/stderr are kept (last 64 KB each)
 * so a failed start can say why; `onStdout` sees the output as it arrives.
 */
export function spawnTracked(command, args, { env, cwd, onStdout, label = command } = {}) {
  installHooks();
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const output = { stdout: '', stderr: '' };
  const keep = (name) => (chunk) => {
    output[name] = (output[name] + chunk.toString()).slice(-65536);
    if (name === 'stdout' && onStdout) onStdout(output.stdout);
  };
  child.stdout.on('data', keep('stdout'));
  child.stderr.on('data', keep('stderr'));
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, output, exited, label };
}

/** SIGTERM, then SIGKILL if the child has not gone within `graceMs`. */
export async function stopChild(tracked, graceMs = 5000) {
  const { child, exited } = tracked;
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once `url` answers with any HTTP status (a 404 still proves the server listens);
 * rejects if the child exits first or `timeoutMs` passes, quoting the child's stderr.
 */
export async function waitForHttp(url, tracked, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let exitedEarly = null;
  tracked.exited.then((status) => (exitedEarly = status));
  while (Date.now() < deadline) {
    if (exitedEarly) {
      throw new Error(
        `${tracked.label} exited before answering (code ${exitedEarly.code}, signal ${exitedEarly.signal}):\n` +
          tail(tracked.output.stderr || tracked.output.stdout),
      );
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      return res;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${tracked.label} did not answer ${url} within ${timeoutMs} ms:\n${tail(tracked.output.stderr)}`);
}

function tail(text, lines = 20) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * Waits until `pid` and its descendants use less than `busyCores` of a core over one `windowMs` window, or
 * `timeoutMs` has passed; answers the seconds waited, or null where /proc is not there to read. A started
 * `plinth serve` warms its worker in the background (a media sandbox, a Chromium and its lighting, seconds of a
 * core); a load test that began meanwhile would measure that warm-up beside the route.
 */
export async function waitForQuiet(pid, { busyCores = 0.05, windowMs = 1000, timeoutMs = 90_000 } = {}) {
  const started = Date.now();
  if (!existsSync('/proc')) return null;
  let before = treeCpuSeconds(pid);
  while (Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = treeCpuSeconds(pid);
    if (now - before < (busyCores * windowMs) / 1000) break;
    before = now;
  }
  return (Date.now() - started) / 1000;
}
