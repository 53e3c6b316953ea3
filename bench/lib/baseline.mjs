// Starts a baseline server in its own process, so it competes with the load generator for CPU
// exactly as the Plinth server does.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnTracked, stopChild, tempDir, waitForHttp } from './processes.mjs';

const ENTRY = fileURLToPath(new URL('./baseline-server.mjs', import.meta.url));

/**
 * spec: { routes: [{ method, path, status, headers, body }] } for fixed answers, or
 *       { module: '/abs/handler.mjs', options } for a custom node:http handler (see baseline-server.mjs).
 * Either may add nodeArgs: flags for the baseline's node (e.g. ['--cpu-prof'] to profile it beside Plinth).
 * Returns { url, port, stop() }.
 */
export async function startBaseline(spec) {
  const dir = tempDir('plinth-bench-baseline-');
  const specFile = join(dir.path, 'spec.json');
  // A file rather than an env var: bodies (exports, lists) can outgrow the environment's limits.
  writeFileSync(specFile, JSON.stringify(spec));
  const port = await freePort();
  const server = spawnTracked(process.execPath, [...(spec.nodeArgs ?? []), ENTRY, specFile], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    label: 'baseline server',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, server, 10_000);
  return {
    url,
    port,
    async stop() {
      const status = await stopChild(server);
      dir.remove();
      return status;
    },
  };
}

/**
 * Fetches one answer from a running server and returns it as a fixed baseline route, so the
 * baseline sends byte-for-byte the same body and content type as Plinth.
 */
export async function captureRoute(url, { method = 'GET', headers = {}, body } = {}) {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  const u = new URL(url);
  const contentType = res.headers.get('content-type');
  return {
    method,
    path: u.pathname,
    status: res.status,
    headers: contentType ? { 'content-type': contentType } : {},
    body: text,
  };
}
