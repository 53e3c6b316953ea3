import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config.js';
import { createFetcher, type LookupFn } from './index.js';
import { systemLookup } from './resolver.js';
import { FetchError, type FetchErrorCode, type GuardedFetcher } from './types.js';

/** Loopback HTTP servers (IPv4 and IPv6) that count every TCP connection and request they see. */
interface Target {
  port: number;
  port6: number;
  connections: number;
  hits: string[];
  streamClosedEarly: boolean;
}
const target: Target = { port: 0, port6: 0, connections: 0, hits: [], streamClosedEarly: false };
const servers: Server[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  target.hits.push(url.pathname + url.search);
  const [, route, arg] = url.pathname.split('/');
  if (route === 'ok') return void res.end('hello');
  if (route === 'secret') return void res.end('secret');
  if (route === 'redirect') {
    res.writeHead(Number(url.searchParams.get('code') ?? 302), { location: url.searchParams.get('to') ?? '/' });
    return void res.end();
  }
  if (route === 'hops') {
    const n = Number(arg);
    if (n === 0) return void res.end('done');
    res.writeHead(302, { location: `/hops/${n - 1}` });
    return void res.end();
  }
  if (route === 'status') return void res.writeHead(Number(arg)).end('nope');
  if (route === 'echo') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.end(JSON.stringify({ method: req.method, body, authorization: req.headers.authorization ?? null })));
    return;
  }
  if (route === 'bytes') return void res.end(Buffer.alloc(Number(arg), 'b'));
  if (route === 'stream') {
    let sent = 0;
    res.on('close', () => (target.streamClosedEarly = sent < 4 * 1024 * 1024));
    const pump = (): void => {
      if (res.destroyed || sent >= 4 * 1024 * 1024) return void res.end();
      sent += 8192;
      res.write(Buffer.alloc(8192, 's'), () => setImmediate(pump));
    };
    return pump();
  }
  if (route === 'huge-length') return void res.writeHead(200, { 'content-length': String(10 * 1024 ** 3) }).write('x');
  // Declares 10 bytes and sends far more: the extra must never reach the caller.
  if (route === 'short-length') return void req.socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n${'y'.repeat(20_000)}`);
  if (route === 'hang-body') return void res.writeHead(200).write('partial');
  if (route === 'hang') return;
  res.writeHead(404).end();
}

async function listen(host: string): Promise<number> {
  const server = createServer(handle);
  server.on('connection', () => target.connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as { port: number }).port;
}

// Names the tests point at loopback or elsewhere without real DNS; anything else uses the system resolver.
const names: Record<string, string[]> = {
  'app.test': ['127.0.0.1'],
  'loop.test': ['127.0.0.1'],
  'v6loop.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'intranet.test': ['10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};
const lookups: string[] = [];
let rebindAnswers = 0;
const lookup: LookupFn = async (hostname) => {
  lookups.push(hostname);
  if (hostname === 'rebind.test') return [{ address: rebindAnswers++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
  if (hostname === 'nx.test') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  const known = names[hostname];
  return known ? known.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) : systemLookup(hostname);
};

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-fetch-'));
const open: GuardedFetcher[] = [];
function fetcher(allowHosts: string[] = [], env: Record<string, string> = {}): GuardedFetcher {
  const config = loadConfig({
    PLINTH_DATA_DIR: dataDir,
    PLINTH_SECRET: 'x'.repeat(20),
    PLINTH_FETCH_ALLOW_HOSTS: allowHosts.join(','),
    PLINTH_FETCH_MAX_BYTES: '4096',
    PLINTH_FETCH_TIMEOUT_MS: '5000',
    ...env,
  });
  const f = createFetcher(config, { lookup });
  open.push(f);
  return f;
}

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(FetchError);
    return err as FetchError;
  }
  throw new Error('expected a FetchError');
}
async function expectCode(promise: Promise<unknown>, code: FetchErrorCode): Promise<FetchError> {
  const err = await failure(promise);
  expect(err.code, err.message).toBe(code);
  return err;
}

beforeAll(async () => {
  target.port = await listen('127.0.0.1');
  target.port6 = await listen('::1');
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((f) => f.close()));
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const v4Spellings = ['127.0.0.1', '127.1', '0x7f000001', '2130706433', '0177.0.0.1', '0x7f.0.0.1', '127.0.0.1.', '0.0.0.0', '0',
  '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]', 'localhost', 'loop.test', 'mapped.test'];
const v6Spellings = ['[::1]', '[0:0:0:0:0:0:0:1]', '[::]', 'v6loop.test'];
const spellingUrls = (path: string): string[] => [
  ...v4Spellings.map((h) => `http://${h}:${target.port}${path}`),
  ...v6Spellings.map((h) => `http://${h}:${target.port6}${path}`),
];

describe('address guard', () => {
  it('every spelling of a loopback target reaches the servers when allow-listed as written (control)', async () => {
    const f = fetcher(['127.0.0.1', '0.0.0.0', '::ffff:7f00:1', 'localhost', 'loop.test', 'mapped.test', '::1', '::', 'v6loop.test']);
    for (const url of spellingUrls('/ok')) {
      const res = await f.fetch(url);
      expect(res.body.toString(), url).toBe('hello');
    }
    expect(target.connections).toBeGreaterThan(0);
  });

  it('refuses every spelling, and hosts resolving to blocked addresses, without opening a connection', async () => {
    const f = fetcher();
    const before = target.connections;
    const urls = [...spellingUrls('/ok'), `http://mixed.test:${target.port}/ok`, `http://[::7f00:1]:${target.port}/`,
      `http://[64:ff9b::7f00:1]:${target.port}/`, `http://[2002:7f00:1::]:${target.port}/`, 'http://169.254.169.254/latest/meta-data/',
      'http://metadata.test/', 'http://intranet.test/', 'http://10.0.0.1/', 'https://192.168.0.1/', 'http://[fe80::1]/', 'http://[fd00::1]/'];
    for (const url of urls) {
      const err = await expectCode(f.fetch(url), 'blocked_address');
      expect(err.url).toBe(new URL(url).href);
      await expectCode(f.check(url), 'blocked_address');
    }
    expect(target.connections - before).toBe(0);
  });

  it('reaches the server once 127.0.0.1 is allowed, and check() accepts it', async () => {
    const f = fetcher(['127.0.0.1']);
    const before = target.connections;
    await f.check(`http://127.0.0.1:${target.port}/ok`);
    const res = await f.fetch(`http://127.0.0.1:${target.port}/ok`);
    expect(res).toMatchObject({ status: 200, url: `http://127.0.0.1:${target.port}/ok` });
    expect(res.body.toString()).toBe('hello');
    expect(res.headers['content-length']).toBe('5');
    expect(target.connections - before).toBe(1);
    // Allow-listing is by hostname as written: other spellings of the same address stay blocked.
    await expectCode(f.fetch(`http://localhost:${target.port}/ok`), 'blocked_address');
  });

  it('dials the address its own lookup vetted, so a DNS answer that changes after check() cannot rebind', async () => {
    const f = fetcher();
    rebindAnswers = 0;
    await f.check(`http://rebind.test:${target.port}/ok`); // first answer: public
    const before = target.connections;
    await expectCode(f.fetch(`http://rebind.test:${target.port}/ok`), 'blocked_address'); // second: loopback
    expect(target.connections - before).toBe(0);
  });

  it('connects through the injected lookup (app.test only exists there)', async () => {
    const f = fetcher(['app.test']);
    lookups.length = 0;
    expect((await f.fetch(`http://app.test:${target.port}/ok`)).body.toString()).toBe('hello');
    expect(lookups).toEqual(['app.test']);
  });

  it('check() resolves without fetching and reports DNS failures', async () => {
    const f = fetcher();
    const before = target.connections;
    await f.check('https://public.test/some/image.png');
    await expectCode(f.check('http://nx.test/'), 'dns_failed');
    await expectCode(f.fetch('http://nx.test/'), 'dns_failed');
    await expectCode(f.check('ftp://public.test/'), 'bad_url');
    expect(target.connections - before).toBe(0);
  });
});

describe('URL rules', () => {
  const refused = (port: number): string[] => [
    `file:///etc/passwd`, `ftp://127.0.0.1:${port}/`, 'data:text/plain,hello', `gopher://127.0.0.1:${port}/_GET%20/`,
    'javascript:alert(1)', `ws://127.0.0.1:${port}/`, 'not a url', '', 'http://',
    `http://user@127.0.0.1:${port}/ok`, `http://user:pass@127.0.0.1:${port}/ok`, `http://:@127.0.0.1:${port}/ok`,
    `http://127.0.0.1:${port}@127.0.0.1:${port}/ok`,
  ];

  it('refuses non-http schemes and credentials even for an allowed host, before connecting', async () => {
    const f = fetcher(['127.0.0.1']);
    const before = target.connections;
    for (const url of refused(target.port)) {
      await expectCode(f.fetch(url), 'bad_url');
      await expectCode(f.check(url), 'bad_url');
    }
    expect(target.connections - before).toBe(0);
  });
});

describe('redirects', () => {
  const via = (to: string, code = 302): string => `http://app.test:${target.port}/redirect?code=${code}&to=${encodeURIComponent(to)}`;

  it('re-checks each hop: an allowed first hop cannot bounce to a blocked address', async () => {
    const f = fetcher(['app.test']);
    const secret = `http://127.0.0.1:${target.port}/secret`;
    for (const to of [secret, `http://localhost:${target.port}/secret`, `http://[::ffff:7f00:1]:${target.port}/secret`,
      `http://loop.test:${target.port}/secret`, 'http://169.254.169.254/latest/meta-data/', 'http://metadata.test/']) {
      target.hits.length = 0;
      const before = target.connections;
      const err = await expectCode(f.fetch(via(to)), 'blocked_address');
      expect(err.url).toBe(new URL(to).href);
      expect(target.hits).toEqual([new URL(via(to)).pathname + new URL(via(to)).search]);
      expect(target.connections - before).toBeLessThanOrEqual(1); // the allowed first hop only
    }
    await expectCode(f.fetch(via('file:///etc/passwd')), 'bad_url');
    await expectCode(f.fetch(via(`http://u:p@app.test:${target.port}/ok`)), 'bad_url');
  });

  it('the same redirect is followed when its target is allowed (control)', async () => {
    const f = fetcher(['app.test', '127.0.0.1']);
    target.hits.length = 0;
    const res = await f.fetch(via(`http://127.0.0.1:${target.port}/secret`));
    expect(res).toMatchObject({ status: 200, url: `http://127.0.0.1:${target.port}/secret` });
    expect(target.hits).toContain('/secret');
  });

  it('follows at most 3 hops; the 4th is refused and never requested', async () => {
    const f = fetcher(['127.0.0.1']);
    const done = await f.fetch(`http://127.0.0.1:${target.port}/hops/3`);
    expect(done).toMatchObject({ status: 200, url: `http://127.0.0.1:${target.port}/hops/0` });
    target.hits.length = 0;
    await expectCode(f.fetch(`http://127.0.0.1:${target.port}/hops/4`), 'too_many_redirects');
    expect(target.hits).toEqual(['/hops/4', '/hops/3', '/hops/2', '/hops/1']);
  });

  it('followRedirects:false returns the 3xx as-is', async () => {
    const f = fetcher(['127.0.0.1']);
    const res = await f.fetch(`http://127.0.0.1:${target.port}/hops/1`, { followRedirects: false });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/hops/0');
  });

  it('303 turns POST into GET, 307 keeps it, and credentials headers stay on their origin', async () => {
    const f = fetcher(['app.test', '127.0.0.1']);
    const post = { method: 'POST' as const, body: 'payload', headers: { Authorization: 'Bearer t' } };
    const echo = (res: { body: Buffer }) => JSON.parse(res.body.toString());
    expect(echo(await f.fetch(via('/echo', 303), post))).toEqual({ method: 'GET', body: '', authorization: 'Bearer t' });
    expect(echo(await f.fetch(via('/echo', 307), post))).toEqual({ method: 'POST', body: 'payload', authorization: 'Bearer t' });
    const elsewhere = via(`http://127.0.0.1:${target.port}/echo`, 307);
    expect(echo(await f.fetch(elsewhere, post))).toEqual({ method: 'POST', body: 'payload', authorization: null });
  });
});

describe('limits', () => {
  const at = (path: string): string => `http://127.0.0.1:${target.port}${path}`;

  it('aborts a streamed body past maxBytes (config default and per call)', async () => {
    const f = fetcher(['127.0.0.1']);
    target.streamClosedEarly = false;
    await expectCode(f.fetch(at('/stream')), 'too_large');
    await expectCode(f.fetch(at('/stream'), { maxBytes: 20_000 }), 'too_large');
    await expect.poll(() => target.streamClosedEarly).toBe(true);
    expect((await f.fetch(at('/bytes/4096'))).body.length).toBe(4096);
    await expectCode(f.fetch(at('/bytes/4097')), 'too_large');
  });

  it('rejects an oversized Content-Length before reading, and never returns more than a short one declares', async () => {
    const f = fetcher(['127.0.0.1']);
    // Refused on its headers: a fetcher that began reading would end in 'timeout', since the body never comes.
    await expectCode(f.fetch(at('/huge-length'), { timeoutMs: 4000 }), 'too_large');
    const res = await f.fetch(at('/short-length'));
    expect(res.body.toString()).toBe('y'.repeat(10));
  });

  it('enforces the overall deadline while waiting for headers and for the body', async () => {
    const f = fetcher(['127.0.0.1'], { PLINTH_FETCH_TIMEOUT_MS: '300' });
    // Without the deadline these would wait on the hanging server until the test's own timeout fails them.
    for (const path of ['/hang', '/hang-body']) await expectCode(f.fetch(at(path)), 'timeout');
    await expectCode(f.fetch(at('/hang'), { timeoutMs: 150 }), 'timeout');
  });

  it('a caller abort is not reported as a timeout', async () => {
    const f = fetcher(['127.0.0.1']);
    const err = await failure(f.fetch(at('/hang'), { signal: AbortSignal.timeout(100) }));
    expect(err.code).toBe('network');
  });

  it('non-2xx answers fail unless failOnHttpError is false', async () => {
    const f = fetcher(['127.0.0.1']);
    const err = await expectCode(f.fetch(at('/status/404')), 'http_status');
    expect(err.status).toBe(404);
    expect((await expectCode(f.fetch(at('/status/503')), 'http_status')).status).toBe(503);
    const res = await f.fetch(at('/status/404'), { failOnHttpError: false });
    expect(res.status).toBe(404);
    expect(res.body.toString()).toBe('nope');
  });

  it('close() is idempotent and later fetches fail cleanly', async () => {
    const f = fetcher(['127.0.0.1']);
    await f.close();
    await f.close();
    await expectCode(f.fetch(at('/ok')), 'network');
  });
});
