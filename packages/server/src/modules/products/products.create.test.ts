import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { quoteAndCommit } from '../../test/products.js';
import { snapshot as takeSnapshot } from '../../test/checks.js';
import { signQuote } from '../quotes/quote-token.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const post = (payload: object, key = t.org.secret_key) => t.app.inject({ method: 'POST', url: '/v1/products', headers: bearer(key), payload });

const snapshot = () => takeSnapshot(t);

const body = { image_urls: ['https://images.example/a.jpg', 'https://images.example/b.jpg'], title: 'Chair', tags: ['chairs', 'oak'] };

describe('create: quote then commit', () => {
  it('a fresh create answers 200 with a quote and writes nothing', async () => {
    // image hosts resolve through the guarded fetcher's DNS check; use an IP literal that is public
    const before = await snapshot();
    const res = await post({ ...body, image_urls: ['https://93.184.216.34/a.jpg', 'https://93.184.216.34/b.jpg'] });
    expect(res.statusCode, res.body).toBe(200);
    const q = res.json();
    expect(q.object).toBe('quote');
    expect(q.operation).toBe('create');
    expect(q.credits).toBe(2 * 1 + 20);
    expect(q.balance_credits).toBe(1000);
    expect(q.resume_token).toMatch(/^rt_/);
    expect(Date.parse(q.expires_at)).toBeGreaterThan(Date.now());
    expect(q.input.title).toBe('Chair');
    expect(await snapshot()).toEqual(before);
  });

  it('committing the token gives 202 and the product; replaying it gives 409; credits are debited once', async () => {
    const q = (await post({ ...body, image_urls: ['https://93.184.216.34/c.jpg'] })).json();
    const commit = await post({ resume_token: q.resume_token });
    expect(commit.statusCode, commit.body).toBe(202);
    const p = commit.json();
    expect(p.object).toBe('product');
    expect(p.id).toMatch(/^prod_/);
    expect(p.title).toBe('Chair');
    expect(p.tags).toEqual(['chairs', 'oak']);
    expect(p.status).toBe('draft');
    expect(p.model_status).toBe('queued');
    expect(commit.headers.location).toBe(`/v1/products/${p.id}`);
    const replay = await post({ resume_token: q.resume_token });
    expect(replay.statusCode).toBe(409);
    expect(replay.json().error.code).toBe('conflict');
    expect(replay.json().error.details.reason).toBe('resume_token_used');
    const ledger = await t.deps.database.db.selectFrom('credit_ledger').selectAll().where('ref', '=', p.id).execute();
    expect(ledger.map((l) => l.delta)).toEqual([-q.credits]);
    const jobs = await t.deps.database.db.selectFrom('jobs').select('queue').where('payload', 'like', `%${p.id}%`).execute();
    if (t.deps.jobs.kind === 'local') expect(jobs.map((j) => j.queue)).toEqual(['ingest.images']);
    const events = await t.deps.database.db.selectFrom('events').select('type').where('data', 'like', `%${p.id}%`).execute();
    expect(events.map((e) => e.type)).toEqual(['product.created']);
  });

  it('a commit may repeat quoted fields, but a changed field gives 400 quote_changed', async () => {
    const q = (await post({ ...body, image_urls: ['https://93.184.216.34/d.jpg'] })).json();
    const changed = await post({ resume_token: q.resume_token, title: 'Table' });
    expect(changed.statusCode).toBe(400);
    expect(changed.json().error.code).toBe('quote_changed');
    expect(changed.json().error.details.fields).toEqual(['title']);
    const same = await post({ resume_token: q.resume_token, title: 'Chair', tags: ['chairs', 'oak'] });
    expect(same.statusCode).toBe(202);
  });

  it('a price change since the quote gives 400 quote_changed', async () => {
    const token = signQuote(t.config.secret, {
      op: 'create',
      org: t.org.org_id,
      input: { image_urls: ['https://93.184.216.34/e.jpg'], generate_model: true },
      credits: 5,
      exp: Math.floor(Date.now() / 1000) + 60,
    });
    const res = await post({ resume_token: token });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.reason).toBe('price_changed');
  });

  it('an expired token gives 400 quote_expired; a forged one 400 invalid_request', async () => {
    const expired = signQuote(t.config.secret, { op: 'create', org: t.org.org_id, input: { image_urls: ['https://93.184.216.34/f.jpg'], generate_model: false }, credits: 1, exp: Math.floor(Date.now() / 1000) - 1 });
    expect((await post({ resume_token: expired })).json().error.code).toBe('quote_expired');
    const forged = signQuote('another secret of enough length', { op: 'create', org: t.org.org_id, input: {}, credits: 0, exp: Math.floor(Date.now() / 1000) + 60 });
    const res = await post({ resume_token: forged });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it("another organization's token is not committable (404)", async () => {
    const other = await t.bootstrap();
    const q = (await post({ image_urls: ['https://93.184.216.34/g.jpg'] }, other.secret_key)).json();
    const res = await post({ resume_token: q.resume_token });
    expect(res.statusCode).toBe(404);
  });

  it('a duplicate custom_id gives 409 conflict at quote and at commit', async () => {
    const q1 = (await post({ image_urls: ['https://93.184.216.34/h.jpg'], custom_id: 'SKU-1' })).json();
    const q2 = (await post({ image_urls: ['https://93.184.216.34/i.jpg'], custom_id: 'SKU-1' })).json();
    expect((await post({ resume_token: q1.resume_token })).statusCode).toBe(202);
    const dup = await post({ resume_token: q2.resume_token });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('conflict');
    const atQuote = await post({ image_urls: ['https://93.184.216.34/j.jpg'], custom_id: 'SKU-1' });
    expect(atQuote.statusCode).toBe(409);
    expect(atQuote.json().error.code).toBe('conflict');
  });

  it('exactly one source: none or two give 422', async () => {
    for (const payload of [{ title: 'x' }, { image_urls: ['https://93.184.216.34/a.jpg'], video_url: 'https://93.184.216.34/v.mp4' }]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
    }
  });

  it('URLs to private or metadata addresses, or with odd schemes, are refused with 422 and nothing written', async () => {
    const before = await snapshot();
    for (const url of ['http://127.0.0.1/a.jpg', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:10.0.0.1]/x', 'http://0x7f000001/', 'ftp://93.184.216.34/a.jpg', 'http://user:pw@93.184.216.34/a.jpg']) {
      const res = await post({ image_urls: [url] });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().error.details.errors[0].path).toBe('body.image_urls[0]');
    }
    const model = await post({ model_url: 'http://192.168.1.10/m.glb' });
    expect(model.statusCode).toBe(422);
    expect(await snapshot()).toEqual(before);
  });

  it('image_paths must be uploads of the same organization', async () => {
    const res = await post({ image_paths: ['uploads/upl_unknown.jpg'] });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details.errors[0].path).toBe('body.image_paths[0]');
  });
});

describe('plans and credits', () => {
  it.each([
    ['none', 'no_plan'],
    ['trial_used', 'trial_used'],
    ['payment_failed', 'payment_failed'],
  ] as const)('plan %s: 402 plan_required with reason %s, at quote and for an import', async (plan, reason) => {
    const org = await t.bootstrap({ plan });
    const res = await post({ image_urls: ['https://93.184.216.34/a.jpg'] }, org.secret_key);
    expect(res.statusCode).toBe(402);
    expect(res.json().error.code).toBe('plan_required');
    expect(res.json().error.details.reason).toBe(reason);
    const imp = await post({ model_url: 'https://93.184.216.34/m.glb' }, org.secret_key);
    expect(imp.statusCode).toBe(402);
  });

  it('the active-product cap gives 402 active_product_cap', async () => {
    const org = await t.bootstrap({ activeProductCap: 1 });
    expect((await post({ model_url: 'https://93.184.216.34/m.glb' }, org.secret_key)).statusCode).toBe(202);
    const res = await post({ image_urls: ['https://93.184.216.34/a.jpg'] }, org.secret_key);
    expect(res.statusCode).toBe(402);
    expect(res.json().error.details.reason).toBe('active_product_cap');
  });

  it('too few credits: 429 quota_exceeded with shortfall_credits', async () => {
    const org = await t.bootstrap({ credits: 5 });
    const res = await post({ image_urls: ['https://93.184.216.34/a.jpg'] }, org.secret_key);
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('quota_exceeded');
    expect(res.json().error.details.shortfall_credits).toBe(21 - 5);
    expect(res.json().error.details.required_credits).toBe(21);
  });

  it('200 concurrent commits against credits for 100 leave the balance at zero, never below', async () => {
    const org = await t.bootstrap({ credits: 100 });
    const quotes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post({ image_urls: [`https://93.184.216.34/${i}.jpg`], generate_model: false }, org.secret_key)),
    );
    expect(quotes.every((q) => q.statusCode === 200)).toBe(true);
    const commits = await Promise.all(quotes.map((q) => post({ resume_token: q.json().resume_token }, org.secret_key)));
    const accepted = commits.filter((c) => c.statusCode === 202).length;
    const refused = commits.filter((c) => c.statusCode === 429 && c.json().error.code === 'quota_exceeded').length;
    expect(accepted).toBe(100);
    expect(refused).toBe(100);
    const row = await t.deps.database.db.selectFrom('organizations').select('credit_balance').where('id', '=', org.org_id).executeTakeFirstOrThrow();
    expect(row.credit_balance).toBe(0);
  });

  it('an import (model_url) commits at once with 202 and no credits', async () => {
    const org = await t.bootstrap({ credits: 0 });
    const res = await post({ model_url: 'https://93.184.216.34/m.glb', title: 'Lamp' }, org.secret_key);
    expect(res.statusCode).toBe(202);
    expect(res.json().model_status).toBe('queued');
    expect(res.json().source).toEqual({ kind: 'model_url', model_url: 'https://93.184.216.34/m.glb' });
  });

  it('quoteAndCommit helper round-trips', async () => {
    const p = await quoteAndCommit(t, t.org.secret_key, { image_urls: ['https://93.184.216.34/z.jpg'] });
    expect(p.id).toMatch(/^prod_/);
  });
});
