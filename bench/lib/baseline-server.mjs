// Child-process entry for baseline servers: bare node:http, nothing between the socket and the answer.
// Usage: node baseline-server.mjs SPEC.json   (PORT and HOST from the environment)
//
// SPEC.json is either { "routes": [{ "method", "path", "status", "headers", "body" }] } for fixed
// answers, or { "module": "/abs/path.mjs", "options": {...} } whose default export
// `(options) => handler | Promise<handler>` returns a (req, res) handler, for baselines that must do
// real work (parse a body, touch a database) to be a fair comparison.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));

function fixedRoutes(routes) {
  // Bodies are encoded once up front, as a real server would serve a cached answer.
  const table = new Map(
    routes.map((r) => {
      const body = Buffer.from(typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? ''));
      const headers = { 'content-length': String(body.length), ...(r.headers ?? {}) };
      return [`${(r.method ?? 'GET').toUpperCase()} ${r.path}`, { status: r.status ?? 200, headers, body }];
    }),
  );
  return (req, res) => {
    const q = req.url.indexOf('?');
    const route = table.get(`${req.method} ${q === -1 ? req.url : req.url.slice(0, q)}`);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // Drain any request body so keep-alive connections stay usable.
    req.resume();
    req.on('end', () => res.writeHead(route.status, route.headers).end(route.body));
  };
}

const handler = spec.module ? await (await import(pathToFileURL(spec.module).href)).default(spec.options ?? {}) : fixedRoutes(spec.routes ?? []);

const server = createServer(handler);
server.listen(Number(process.env.PORT), process.env.HOST || '127.0.0.1');

process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  // Idle keep-alive sockets would otherwise hold close() open.
  server.closeAllConnections();
});
