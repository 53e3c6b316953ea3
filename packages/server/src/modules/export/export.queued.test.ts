import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerJobHandlers } from '../../worker.js';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { attachRealImages } from '../../test/images.js';
import { seedProduct } from '../../test/products.js';

/** A real SMTP exchange on loopback: the mail goes through nodemailer and smtp-server, not a stub. */
function startSmtp() {
  const messages: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  return { server, messages };
}

let t: TestApp;
let smtp: ReturnType<typeof startSmtp>;
beforeAll(async () => {
  smtp = startSmtp();
  smtp.server.listen(0, '127.0.0.1');
  await once(smtp.server.server, 'listening');
  const port = (smtp.server.server.address() as AddressInfo).port;
  t = await createTestApp({ PLINTH_EXPORT_SYNC_LIMIT: '1', SMTP_URL: `smtp://127.0.0.1:${port}`, PUBLIC_URL: 'http://plinth.test' });
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp.server.close(() => resolve()));
});

async function waitFor<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('queued export', () => {
  it('202 without streaming; mail arrives over SMTP with a link that streams the same ZIP as the repeated request', async () => {
    const id = await seedProduct(t, t.org.org_id);
    await attachRealImages(t, id, 3);
    const url = `/v1/products/export?ids=${id}&notify_email=buyer%40example.test`;
    const first = await t.app.inject({ method: 'GET', url, headers: bearer(t.org.secret_key) });
    expect(first.statusCode, first.body).toBe(202);
    const body = first.json();
    expect(body.status).toBe('queued');
    expect(body.export_id).toMatch(/^exp_/);
    expect(body.pending_images).toBe(3);

    const mail = await waitFor(() => smtp.messages[0]);
    expect(mail).toContain('buyer@example.test');
    const link = /http:\/\/plinth\.test(\/v1\/exports\/[^\s]+)/.exec(mail.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![1];
    const viaLink = await t.app.inject({ method: 'GET', url: link });
    expect(viaLink.statusCode).toBe(200);
    expect(viaLink.headers['content-type']).toBe('application/zip');

    const repeated = await t.app.inject({ method: 'GET', url, headers: bearer(t.org.secret_key) });
    expect(repeated.statusCode).toBe(200);
    expect(Buffer.compare(repeated.rawPayload, viaLink.rawPayload)).toBe(0);

    const events = await t.deps.database.db.selectFrom('events').select('type').where('type', '=', 'export.ready').execute();
    expect(events).toHaveLength(1);
    const tampered = await t.app.inject({ method: 'GET', url: link.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`) });
    expect(tampered.statusCode).toBe(404);
  });

  it('with a preset and strict, the mail names the images left out and the rules they failed', async () => {
    const id = await seedProduct(t, t.org.org_id);
    const images = await attachRealImages(t, id, 2);
    const review = await t.app.inject({ method: 'POST', url: `/v1/products/${id}/review`, headers: bearer(t.org.secret_key), payload: { images: [{ image_id: images[1], settings: { fill: 0.6 } }] } });
    expect(review.statusCode).toBe(200);
    const before = smtp.messages.length;
    const url = `/v1/products/export?ids=${id}&preset=square_1080&strict=true&notify_email=channel%40example.test`;
    const first = await t.app.inject({ method: 'GET', url, headers: bearer(t.org.secret_key) });
    expect(first.statusCode, first.body).toBe(202);
    const mail = (await waitFor(() => smtp.messages.slice(before).find((m) => m.includes('channel@example.test')))).replace(/=\r?\n/g, '');
    // square_1080 has no fill rule: the image passes. Under google_shopping the same fill fails.
    expect(mail).toContain('Every image meets the rules of square_1080');
    const google = `/v1/products/export?ids=${id}&preset=google_shopping&strict=true&notify_email=google%40example.test`;
    expect((await t.app.inject({ method: 'GET', url: google, headers: bearer(t.org.secret_key) })).statusCode).toBe(202);
    const failed = (await waitFor(() => smtp.messages.find((m) => m.includes('google@example.test')))).replace(/=\r?\n/g, '');
    expect(failed).toContain('1 images failed a check of google_shopping and were left out');
    expect(failed).toContain(`${images[1]}.jpg: fill`);
    const zip = await t.app.inject({ method: 'GET', url: google, headers: bearer(t.org.secret_key) });
    expect(zip.statusCode).toBe(200);
  });

  it('a queued export needs notify_email (422)', async () => {
    const id = await seedProduct(t, t.org.org_id);
    await attachRealImages(t, id, 3);
    const res = await t.app.inject({ method: 'GET', url: `/v1/products/export?ids=${id}`, headers: bearer(t.org.secret_key) });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.details.errors[0].path).toBe('query.notify_email');
  });
});
