// GET /v1/health on Plinth against a bare node:http server sending the same bytes: the fixed cost
// of Plinth's HTTP stack (fastify, hooks, auth routing, validation, serialisation, health probes)
// per request, with no business logic to hide behind.
import { captureRoute, startBaseline } from './lib/baseline.mjs';
import { compare } from './lib/compare.mjs';
import { startPlinth } from './lib/plinth.mjs';

const plinth = await startPlinth();
let baseline;
try {
  // The baseline answers what Plinth answers, captured once, so both send identical payloads.
  const route = await captureRoute(`${plinth.url}/v1/health`);
  if (route.status !== 200) throw new Error(`Plinth /v1/health answered ${route.status}: ${route.body}`);
  baseline = await startBaseline({ routes: [route] });

  await compare({
    name: 'http-baseline',
    title: `GET /v1/health (${Buffer.byteLength(route.body)} bytes, ${route.headers['content-type']})`,
    baselineLabel: 'node:http',
    baseline: { url: `${baseline.url}/v1/health` },
    subject: { url: `${plinth.url}/v1/health` },
  });
} finally {
  await Promise.all([plinth.stop(), baseline?.stop()]);
}
