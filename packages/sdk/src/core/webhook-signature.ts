import { WebhookVerificationError } from './errors.js';

/** Standard Webhooks' default: a delivery older (or newer) than this is refused, so a captured one cannot be replayed later. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** Fetch's Headers, or Node's `req.headers` (lower-case names, possibly arrays). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The raw body exactly as received; a re-serialized object would not match the signature. */
export type WebhookPayload = string | ArrayBuffer | ArrayBufferView;

export interface VerifyOptions {
  /** Seconds the timestamp may differ from now. Default 300. */
  tolerance?: number;
  /** The current time, for tests. */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function bytesOf(payload: WebhookPayload): Uint8Array {
  if (typeof payload === 'string') return new TextEncoder().encode(payload);
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  if (ArrayBuffer.isView(payload)) return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new TypeError('Pass the raw request body (string or bytes), not parsed JSON: the signature covers the exact bytes.');
}

function base64Bytes(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * Checks a Standard Webhooks signature with WebCrypto (browsers, Node 20, edge runtimes): any
 * `v1,<base64 HMAC-SHA256>` in `webhook-signature` over `${id}.${timestamp}.${body}`, keyed by the
 * base64 part of the `whsec_` secret. Several signatures appear while a rotated secret overlaps.
 * Answers the body as text once it is proven authentic.
 */
export async function verifySignature(payload: WebhookPayload, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): Promise<string> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('The webhook-id, webhook-timestamp and webhook-signature headers are required.', 'missing_headers');
  }
  const sentAt = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(sentAt)) {
    throw new WebhookVerificationError('webhook-timestamp is not a number of seconds.', 'invalid_timestamp');
  }
  const now = Math.floor((options.now?.getTime() ?? Date.now()) / 1000);
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - sentAt) > tolerance) {
    throw new WebhookVerificationError(
      sentAt < now ? 'The webhook is too old (replayed, or the clocks disagree).' : 'The webhook is timestamped in the future.',
      'timestamp_out_of_range',
    );
  }

  const keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!keyBytes?.length) throw new WebhookVerificationError('The secret is not whsec_ followed by base64.', 'invalid_secret');
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('WebCrypto (crypto.subtle) is unavailable; browsers offer it only on https pages.');
  const key = await subtle.importKey('raw', keyBytes as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);

  const body = bytesOf(payload);
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);

  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const signature = base64Bytes(value);
    // subtle.verify compares in constant time, so the check leaks nothing about the expected value.
    if (signature && (await subtle.verify('HMAC', key, signature as BufferSource, message as BufferSource))) {
      return new TextDecoder().decode(body);
    }
  }
  throw new WebhookVerificationError('No webhook-signature matches this body and secret.', 'invalid_signature');
}
