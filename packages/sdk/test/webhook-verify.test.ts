import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret, signatureHeaders } from '../../server/src/modules/webhooks/signing.js';
import { Plinth, WebhookVerificationError, verifyWebhookSignature } from '../src/index.js';

const client = new Plinth({ apiKey: 'sk_unused' });
const secret = newSecret();
const body = JSON.stringify({ id: 'evt_1', type: 'product.published', created_at: '2025-01-01T00:00:00.000Z', org_id: 'org_1', data: { object: { id: 'prod_1', status: 'published' } } });

/** Signed by the server's own signing code, as a delivery would be. */
const signed = (at = new Date(), secrets = [secret], payload = body) => signatureHeaders(secrets, 'evt_1', payload, at);

async function refusal(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => expect.fail('expected verification to fail'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return (err as WebhookVerificationError).code;
}

describe('webhooks.verify (Standard Webhooks, WebCrypto)', () => {
  it('accepts what the server signs, from a string, bytes, a Headers or a Node headers record', async () => {
    const headers = signed();
    const event = await client.webhooks.verify(body, headers, secret);
    expect(event).toMatchObject({ id: 'evt_1', type: 'product.published', data: { object: { id: 'prod_1' } } });
    expect(await client.webhooks.verify(new TextEncoder().encode(body), new Headers(headers), secret)).toEqual(event);
    expect(await client.webhooks.verify(Buffer.from(body), { ...headers, 'webhook-id': [headers['webhook-id']] }, secret)).toEqual(event);
  });

  it('agrees with the standardwebhooks library on its own signatures', async () => {
    const at = new Date();
    const signature = new Webhook(secret).sign('msg_2', at, body);
    const headers = { 'webhook-id': 'msg_2', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
    expect((await client.webhooks.verify(body, headers, secret)).type).toBe('product.published');
    expect(await verifyWebhookSignature(body, headers, secret)).toBe(body);
  });

  it('accepts any one of several signatures (a rotated secret overlapping the old one)', async () => {
    const other = newSecret();
    const headers = signed(new Date(), [other, secret]);
    expect((await client.webhooks.verify(body, headers, secret)).id).toBe('evt_1');
    expect((await client.webhooks.verify(body, headers, other)).id).toBe('evt_1');
  });

  it('refuses a changed body, another secret, a changed id', async () => {
    expect(await refusal(client.webhooks.verify(body.replace('prod_1', 'prod_2'), signed(), secret))).toBe('invalid_signature');
    expect(await refusal(client.webhooks.verify(body, signed(), newSecret()))).toBe('invalid_signature');
    expect(await refusal(client.webhooks.verify(body, { ...signed(), 'webhook-id': 'evt_2' }, secret))).toBe('invalid_signature');
    expect(await refusal(client.webhooks.verify(body, { ...signed(), 'webhook-signature': 'v1,bm9wZQ==' }, secret))).toBe('invalid_signature');
  });

  it('refuses deliveries outside five minutes either way, and accepts them inside', async () => {
    const minutes = (n: number) => new Date(Date.now() + n * 60_000);
    expect(await refusal(client.webhooks.verify(body, signed(minutes(-6)), secret))).toBe('timestamp_out_of_range');
    expect(await refusal(client.webhooks.verify(body, signed(minutes(6)), secret))).toBe('timestamp_out_of_range');
    expect((await client.webhooks.verify(body, signed(minutes(-4)), secret)).id).toBe('evt_1');
    expect((await client.webhooks.verify(body, signed(minutes(-6)), secret, { tolerance: 600 })).id).toBe('evt_1');
  });

  it('refuses missing headers, a bad timestamp, a bad secret, and a parsed body', async () => {
    const { 'webhook-signature': _, ...unsigned } = signed();
    expect(await refusal(client.webhooks.verify(body, unsigned, secret))).toBe('missing_headers');
    expect(await refusal(client.webhooks.verify(body, { ...signed(), 'webhook-timestamp': 'soon' }, secret))).toBe('invalid_timestamp');
    expect(await refusal(client.webhooks.verify(body, signed(), 'whsec_!!!'))).toBe('invalid_secret');
    await expect(client.webhooks.verify(JSON.parse(body), signed(), secret)).rejects.toThrow(/raw request body/);
  });

  it('refuses an authentic body that is not an event', async () => {
    const payload = '"just a string"';
    expect(await refusal(client.webhooks.verify(payload, signed(new Date(), [secret], payload), secret))).toBe('invalid_payload');
  });
});
