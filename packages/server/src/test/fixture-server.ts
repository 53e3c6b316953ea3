import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor as waitUntil } from './wait.js';

export interface FixtureServer {
  url(path: string): string;
  set(path: string, body: Buffer | string, type: string): void;
  requests: string[];
  close(): Promise<void>;
}

/** A loopback HTTP server serving fixtures made in the test; reachable only because tests allow 127.0.0.1. */
export async function startFixtureServer(): Promise<FixtureServer> {
  const files = new Map<string, { body: Buffer; type: string }>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const file = files.get((req.url ?? '').split('?')[0]);
    if (!file) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    set: (path, body, type) => files.set(path, { body: Buffer.isBuffer(body) ? body : Buffer.from(body), type }),
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** waitFor with the check first: polls every 100 ms, for up to a minute by default. */
export function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 60_000, what = 'condition'): Promise<NonNullable<T>> {
  return waitUntil(what, fn, timeoutMs, 100) as Promise<NonNullable<T>>;
}
