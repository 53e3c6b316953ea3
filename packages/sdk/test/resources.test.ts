import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebhookJobs } from '../../server/src/modules/webhooks/webhooks.jobs.js';
import { attachRealImages, productPhoto } from '../../server/src/test/images.js';
import { seedImages, seedProduct } from '../../server/src/test/products.js';
import { waitFor } from '../../server/src/test/fixture-server.js';
import { Page, type Plinth, type Product, type WebhookEvent } from '../src/index.js';
import {
  PUBLIC_URL,
  contract,
  instrument,
  operationMatcher,
  operationsOf,
  recordingFetch,
  servedOpenAPI,
  startApi,
  startStub,
  storeBoxModel,
  type Api,
  type OpenAPIDocument,
  type Recorded,
  type Stub,
} from './harness.js';

/**
 * Operations outside the SDK: dashboard sign-in (not part of /v1), the mailed, pre-signed export link and
 * the printable capture mat (a file for people, not a resource for programs).
 */
const NOT_IN_SDK = ['POST /auth/login', 'POST /auth/logout', 'GET /v1/exports/{id}/download', 'GET /capture-mat.pdf'];
/** The dashboard's session-only routes and the embed's read serve those clients, not programs. */
const notInSdk = (op: string) => NOT_IN_SDK.includes(op) || op.includes(' /dashboard/api/') || op.includes(' /embed/');

let api: Api;
let doc: OpenAPIDocument;
let check: ReturnType<typeof contract>;
let client: Plinth;
let coverage: ReturnType<typeof instrument>;
let receiver: Stub;
const log: Recorded[] = [];

beforeAll(async () => {
  api = await startApi({ PLINTH_FETCH_ALLOW_HOSTS: '127.0.0.1', PLINTH_EXPORT_SYNC_LIMIT: '1', PLINTH_WEBHOOK_RETRY_SCALE: '0.001' });
  registerWebhookJobs(api.t.deps, { dispatchIntervalMs: 50, timeoutMs: 5_000 });
  await api.t.deps.jobs.start();
  receiver = await startStub((_n, _req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  doc = await servedOpenAPI(api.base);
  check = contract(doc);
  client = api.client({ fetch: recordingFetch(log) });
  coverage = instrument(client);
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
});

const org = () => api.t.org.org_id;

describe('every resource against a real server, answers checked against the OpenAPI document', () => {
  it('health, projects, API keys', async () => {
    check('GET /v1/health', 200, await client.health.retrieve());

    const project = await client.projects.create({ name: 'Storefront', allowed_domains: ['https://shop.example'] });
    check('POST /v1/projects', 201, project);
    check('GET /v1/projects/{id}', 200, await client.projects.retrieve(project.id));
    const renamed = await client.projects.update(project.id, { name: 'Storefront EU' });
    check('PATCH /v1/projects/{id}', 200, renamed);
    expect(renamed.name).toBe('Storefront EU');
    const projects = await client.projects.list();
    check('GET /v1/projects', 200, projects);
    expect(projects.data.map((p) => p.id)).toContain(project.id);

    const key = await client.apiKeys.create({ name: 'ci', scopes: ['products:read'] });
    check('POST /v1/api_keys', 201, key);
    expect(key.key).toMatch(/^sk_/);
    const keys = await client.apiKeys.list({ limit: 100 });
    check('GET /v1/api_keys', 200, keys);
    expect(JSON.stringify(keys)).not.toContain(key.key);
    const revoked = await client.apiKeys.revoke(key.id);
    check('DELETE /v1/api_keys/{id}', 200, revoked);
    expect(revoked.revoked_at).not.toBeNull();
  });

  it('uploads from Uint8Array, ArrayBuffer and Blob; quote, commit and the raw create', async () => {
    const photo = new Uint8Array(await productPhoto(320, 240));
    const fromBytes = await client.uploads.create(photo, { contentType: 'image/jpeg' });
    check('POST /v1/uploads', 201, fromBytes);
    const buffer = photo.buffer.slice(photo.byteOffset, photo.byteOffset + photo.byteLength) as ArrayBuffer;
    check('POST /v1/uploads', 201, await client.uploads.create(buffer, { contentType: 'image/jpeg' }));
    const fromBlob = await client.uploads.create(new Blob([photo], { type: 'image/jpeg' }), { org_id: org() });
    check('POST /v1/uploads', 201, fromBlob);
    expect(fromBlob.content_type).toBe('image/jpeg');

    const quote = await client.products.quote({ image_paths: [fromBytes.path, fromBlob.path], title: 'Lamp', tags: ['lighting'] });
    check('POST /v1/products', 200, quote);
    expect(quote).toMatchObject({ object: 'quote', operation: 'create' });
    const product = await client.products.commit(quote, { title: 'Lamp' });
    check('POST /v1/products', 202, product);
    expect(product).toMatchObject({ object: 'product', title: 'Lamp', tags: ['lighting'] });

    const raw = await client.products.create({ image_urls: [PUBLIC_URL('/chair.jpg')] });
    check('POST /v1/products', 200, raw);
    expect(raw.object).toBe('quote');
    const imported = await client.products.create({ model_url: PUBLIC_URL('/chair.glb'), custom_id: 'chair-1' });
    check('POST /v1/products', 202, imported);
    expect(imported.object === 'product' && imported.custom_id).toBe('chair-1');
  });

  it('list pages, iterates every page, repeats filters, and lists tags', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await seedProduct(api.t, org(), { tags: ['paged', i % 2 ? 'odd' : 'even'] }));

    const first = await client.products.list({ tag: ['paged'], limit: 2 });
    check('GET /v1/products', 200, first);
    expect(first).toBeInstanceOf(Page);
    expect([first.data.length, first.total, first.offset, first.hasNextPage()]).toEqual([2, 5, 0, true]);
    const second = await first.getNextPage();
    expect(second.offset).toBe(2);
    let pages = 0;
    for await (const _ of first.iterPages()) pages++;
    expect(pages).toBe(3);

    const seen: Product[] = [];
    for await (const p of client.products.list({ tag: ['paged'], limit: 2 })) seen.push(p);
    expect(seen.map((p) => p.id).sort()).toEqual([...ids].sort());

    const both = await client.products.list({ tag: ['paged', 'odd'], tag_match: 'all' });
    expect(both.total).toBe(2);
    const sent = log.filter((r) => r.url.pathname === '/v1/products' && r.method === 'GET').at(-1)!;
    expect(sent.url.searchParams.getAll('tag')).toEqual(['paged', 'odd']);

    const tags = await client.products.tags({ limit: 100 });
    check('GET /v1/products/tags', 200, tags);
    expect(tags.data).toContainEqual({ tag: 'paged', count: 5 });
  });

  it('retrieve, update, publish, review, images, model, rescale, order, delete', async () => {
    const id = await seedProduct(api.t, org(), { title: 'Vase' });
    const [imageId] = await seedImages(api.t, id, org(), 2);
    await storeBoxModel(api.t, org(), id);
    check('GET /v1/products/{id}', 200, await client.products.retrieve(id));
    const { data: withMeta, requestId, status } = await client.products.retrieve(id).withResponse();
    expect([withMeta.id, status, requestId]).toEqual([id, 200, expect.stringMatching(/^req_/)]);
    const progress: Array<number | null> = [];
    const ready = await client.products.waitFor(id, { until: 'model_ready', timeoutMs: 5_000, intervalMs: 50, onProgress: (p) => progress.push(p.progress) });
    expect([ready.model_status, progress]).toEqual(['ready', []]);
    const imagesless = await seedProduct(api.t, org(), { imagesStatus: 'failed' });
    await expect(client.products.waitFor(imagesless, { until: 'images_ready', intervalMs: 50 })).rejects.toMatchObject({ name: 'WaitForError', reason: 'failed' });
    const stuck = await seedProduct(api.t, org(), { modelStatus: 'generating' });
    const seen: Array<string | null> = [];
    await expect(client.products.waitFor(stuck, { until: 'model_ready', timeoutMs: 300, intervalMs: 50, onProgress: (p) => seen.push(p.model_status) })).rejects.toMatchObject({ reason: 'timeout' });
    expect(seen).toEqual(['generating']);
    check('PATCH /v1/products/{id}', 200, await client.products.update(id, { title: 'Tall vase', tags: ['decor'] }));
    const image = await client.products.updateImage(id, imageId, { settings: { background: '#eeeeee', shadow: 'contact' } });
    check('PATCH /v1/products/{id}/images/{image_id}', 200, image);
    expect(image.images.find((i) => i.image_id === imageId)?.settings).toMatchObject({ background: '#eeeeee' });
    check('PATCH /v1/products/{id}/model', 200, await client.products.updateModel(id, { settings: { exposure: 1.2 } }));
    const rescaled = await client.products.rescale(id, { dimensions: { height: 0.4 } });
    check('POST /v1/products/{id}/model/rescale', 200, rescaled);
    expect(rescaled.model?.dimensions?.height).toBeCloseTo(0.4);
    const reviewed = await client.products.review(id, { images: [{ image_id: imageId, decision: 'accepted' }], model: { decision: 'accepted' } });
    check('POST /v1/products/{id}/review', 200, reviewed);
    const published = await client.products.publish({ ids: [id] });
    check('POST /v1/products/publish', 200, published);
    expect(published.updated).toEqual([id]);

    const modelOnly = await seedProduct(api.t, org());
    const order = await client.products.order(modelOnly);
    check('POST /v1/products/{id}/order', 200, order);
    expect(order.operation).toBe('order_renders');
    check('POST /v1/products', 202, await client.products.commit(order.resume_token));

    const [a, b] = [await seedProduct(api.t, org()), await seedProduct(api.t, org())];
    check('DELETE /v1/products/{id}', 200, await client.products.delete(id));
    const many = await client.products.deleteMany([a, b, 'prod_missing']);
    check('DELETE /v1/products', 200, many);
    expect(many.deleted.sort()).toEqual([a, b].sort());
  });

  it('a publishable key reads the public projection and sends beacons (no Idempotency-Key: CORS)', async () => {
    const id = await seedProduct(api.t, org(), { status: 'published' });
    const pk = api.client({ apiKey: api.t.org.publishable_key, fetch: recordingFetch(log), defaultHeaders: { Origin: 'https://shop.example' } });
    const projection = await pk.products.retrievePublic(id);
    check('GET /v1/products/{id}', 200, projection);
    expect(Object.keys(projection).sort()).toEqual(['id', 'model_status', 'model_url', 'thumbnail_url', 'title']);
    expect(await client.products.retrievePublic(id)).toEqual(projection);
    check('POST /v1/beacon', 202, await pk.beacon.send({ events: [{ type: 'view', product_id: id, viewer_id: 'v1' }] }));
    expect(log.at(-1)!.headers.get('idempotency-key')).toBeNull();

    const receipt = await client.beacon.send({ events: [{ type: 'view', product_id: id }, { type: 'ar_enter', product_id: id }] });
    check('POST /v1/beacon', 202, receipt);
    expect(log.at(-1)!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{32,36}$/);
    const usage = await client.usage.retrieve({ include_internal: true, group_by: 'product', event_type: ['view', 'ar_enter'], granularity: 'day' });
    check('GET /v1/usage', 200, usage);
    expect(usage.totals.view).toBeGreaterThanOrEqual(2);
    expect(usage.by_product?.find((p) => p.product_id === id)).toMatchObject({ view: 2, ar_enter: 1 });
  });

  it('runs an experiment: create, list, retrieve, rename, a server conversion, results, stop, delete', async () => {
    const id = await seedProduct(api.t, org(), { status: 'published' });
    const experiment = await client.experiments.create({ name: 'Does 3D sell?', product_ids: [id], arms: { '3d': 0.5, poster: 0.5 } });
    check('POST /v1/experiments', 201, experiment);
    expect(experiment.id).toMatch(/^expt_/);
    const page = await client.experiments.list({ status: 'running' });
    check('GET /v1/experiments', 200, page);
    expect(page.data.map((e) => e.id)).toContain(experiment.id);
    check('GET /v1/experiments/{id}', 200, await client.experiments.retrieve(experiment.id));
    const renamed = await client.experiments.update(experiment.id, { name: 'Stools' });
    check('PATCH /v1/experiments/{id}', 200, renamed);
    expect(renamed.name).toBe('Stools');
    const pk = api.client({ apiKey: api.t.org.publishable_key, fetch: recordingFetch(log), defaultHeaders: { Origin: 'https://shop.example' } });
    await pk.beacon.send({ events: [{ type: 'view', product_id: id, viewer_id: 'v_sdk', experiment_id: experiment.id, arm: 'poster' }] });
    check('POST /v1/conversions', 202, await client.conversions.create({ viewer_id: 'v_sdk', name: 'purchase', value: 30, currency: 'EUR', product_id: id }));
    const results = await client.experiments.results(experiment.id);
    check('GET /v1/experiments/{id}/results', 200, results);
    expect(results.arms.find((a) => a.arm === 'poster')).toMatchObject({ viewers: 1, converters: 1, value: 30 });
    check('POST /v1/experiments/{id}/stop', 200, await client.experiments.stop(experiment.id));
    check('DELETE /v1/experiments/{id}', 200, await client.experiments.delete(experiment.id));
  });

  it('exports a ZIP as a stream, or answers the queued export', async () => {
    const small = await seedProduct(api.t, org(), { customId: 'small' });
    await attachRealImages(api.t, small, 1);
    const zip = await client.products.export({ ids: [small] });
    expect(zip.kind).toBe('zip');
    if (zip.kind !== 'zip') return;
    const bytes = new Uint8Array(await new Response(zip.body).arrayBuffer());
    expect(String.fromCharCode(bytes[0], bytes[1])).toBe('PK');
    expect(zip.filename).toMatch(/\.zip$/);

    const big = await seedProduct(api.t, org());
    await attachRealImages(api.t, big, 3);
    const queued = await client.products.export({ ids: [big], notify_email: 'buyer@example.test' });
    expect(queued.kind).toBe('queued');
    if (queued.kind === 'queued') check('GET /v1/products/export', 202, queued.export);
  });

  it('webhooks: create, deliver, verify the real signature, deliveries, retry, rotate, delete', async () => {
    const hook = await client.webhooks.create({ url: `${receiver.base}/hook`, events: ['product.updated'], description: 'sdk' });
    check('POST /v1/webhooks', 201, hook);
    check('GET /v1/webhooks', 200, await client.webhooks.list());
    check('GET /v1/webhooks/{id}', 200, await client.webhooks.retrieve(hook.id));
    check('PATCH /v1/webhooks/{id}', 200, await client.webhooks.update(hook.id, { description: 'sdk test', org_id: org() }));

    const id = await seedProduct(api.t, org());
    await client.products.update(id, { title: 'Signed' });
    const first = await waitFor(async () => receiver.requests[0], 20_000, 'the first delivery');
    const event: WebhookEvent = await client.webhooks.verify(first.body, first.headers, hook.secret);
    expect(event).toMatchObject({ type: 'product.updated', org_id: org(), data: { object: { id } } });

    const delivered = await waitFor(async () => {
      const page = await client.webhooks.deliveries.list(hook.id, { status: ['succeeded'] });
      return page.data.length ? page : undefined;
    }, 20_000, 'a succeeded delivery');
    check('GET /v1/webhooks/{id}/deliveries', 200, delivered);

    const tested = await client.webhooks.test(hook.id);
    check('POST /v1/webhooks/{id}/test', 202, tested);
    expect(tested).toMatchObject({ event_type: 'webhook.test', status: 'pending' });
    await waitFor(async () => receiver.requests.find((r) => String(r.body).includes('webhook.test')), 20_000, 'the test delivery');

    const rotated = await client.webhooks.rotateSecret(hook.id);
    check('POST /v1/webhooks/{id}/rotate_secret', 200, rotated);
    const retried = await client.webhooks.deliveries.retry(hook.id, delivered.data[0].id);
    check('POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry', 202, retried);
    const again = await waitFor(async () => receiver.requests.filter((r) => String(r.body).includes(event.id))[1], 20_000, 'the retried delivery');
    // While the old secret overlaps, both verify the same delivery.
    for (const secret of [rotated.secret, hook.secret]) {
      expect((await client.webhooks.verify(again.body, new Headers(again.headers as Record<string, string>), secret)).id).toBe(event.id);
    }
    check('DELETE /v1/webhooks/{id}', 200, await client.webhooks.delete(hook.id));
  });

  it('called every SDK method, and every operation of the document the SDK is meant to cover', () => {
    expect([...coverage.all].filter((m) => !coverage.called.has(m))).toEqual([]);
    const documented = operationsOf(doc);
    const match = operationMatcher(documented);
    const used = new Set(log.map((r) => match(r.method, r.url.pathname)));
    expect(used.has(null)).toBe(false);
    expect([...used].sort()).toEqual(documented.filter((op) => !notInSdk(op)).sort());
  });
});
