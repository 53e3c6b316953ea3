import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it: the raw body, exactly as signed. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Date.now() when the body had fully arrived */
  at: number;
}

/** What to answer the n-th (1-based) request to a path: a status, or 'hang' to never answer. */
export type Behaviour = (n: number, req: Received) => number | 'hang';

export interface Receiver {
  origin: string;
  url(path: string): string;
  requests: Received[];
  on(path: string, behaviour: Behaviour): void;
  of(path: string): Received[];
  close(): Promise<void>;
}

/** A webhook receiver on loopback, reachable only because tests allow 127.0.0.1 in the fetcher. */
export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = [];
  const behaviours = new Map<string, Behaviour>();
  const counts = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const received: Received = { path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(received);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const answer = (behaviours.get(path) ?? (() => 200))(n, received);
      if (answer === 'hang') return;
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    requests,
    on: (path, behaviour) => behaviours.set(path, behaviour),
    of: (path) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
