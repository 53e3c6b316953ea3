// Seeding through the public API, the way an integrator would: import a model, wait for the
// worker to finish it, publish. Slower than writing rows, but the product the benchmark reads is
// exactly what production would hold (model keys, dimensions, events), not a guess at it.
import { serveGlb } from './glb.mjs';

/** One API call with the secret key; JSON body in, `{ status, json, text }` out (json null when not JSON). */
export async function api(plinth, method, path, body) {
  const res = await fetch(`${plinth.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${plinth.keys.secret_key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Left null: the error below quotes the raw text.
  }
  return { status: res.status, json, text };
}

/**
 * Creates a product from a GLB served on 127.0.0.1 (Plinth must run with
 * PLINTH_FETCH_ALLOW_HOSTS=127.0.0.1 and its in-process worker), waits until its model is ready
 * and publishes it. Returns the product id.
 */
export async function seedPublishedProduct(plinth, { title = 'Bench chair', timeoutMs = 60_000 } = {}) {
  const glb = await serveGlb();
  try {
    const created = await api(plinth, 'POST', '/v1/products', { model_url: glb.url, title });
    if (created.status !== 202) throw new Error(`POST /v1/products answered ${created.status}: ${created.text}`);
    const id = created.json.id;

    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = await api(plinth, 'GET', `/v1/products/${id}`);
      if (got.status !== 200) throw new Error(`GET /v1/products/${id} answered ${got.status}: ${got.text}`);
      if (got.json.model_status === 'ready') break;
      if (got.json.model_status === 'failed') throw new Error(`model import failed: ${JSON.stringify(got.json.error)}`);
      if (Date.now() > deadline) throw new Error(`model still ${got.json.model_status} after ${timeoutMs} ms (step ${got.json.step})`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const published = await api(plinth, 'POST', '/v1/products/publish', { ids: [id] });
    if (published.status !== 200 || !published.json.updated?.includes(id)) {
      throw new Error(`publish answered ${published.status}: ${published.text}`);
    }
    return id;
  } finally {
    await glb.close();
  }
}

// Added by node:http itself, or per connection: copying them into a fixed answer would duplicate them.
const HOP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/**
 * One answer from Plinth as a fixed baseline route, with every header it sent (CORS, Vary,
 * X-Request-Id…), not only the content type, so both servers put the same bytes on the wire.
 */
export async function captureFullRoute(url, headers) {
  const res = await fetch(url, { headers });
  const body = await res.text();
  const kept = {};
  for (const [name, value] of res.headers) if (!HOP_HEADERS.has(name)) kept[name] = value;
  return { route: { method: 'GET', path: new URL(url).pathname, status: res.status, headers: kept, body }, status: res.status, body, headers: kept };
}
