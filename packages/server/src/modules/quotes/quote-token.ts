import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../core/errors.js';

export type Operation = 'create' | 'order_model' | 'order_renders';

export interface QuotePayload {
  v: 1;
  op: Operation;
  org: string;
  /** the product an order applies to */
  product?: string;
  /** the normalised input the quote priced */
  input: Record<string, unknown>;
  credits: number;
  /** expiry, seconds since the epoch */
  exp: number;
  /** single use: recorded in quote_uses on commit */
  nonce: string;
}

const PREFIX = 'rt_';

function mac(secret: string, body: string): Buffer {
  return createHmac('sha256', secret).update('plinth-resume-token\n').update(body).digest();
}

/** `rt_<payload>.<hmac>`: self-contained, so a quote writes nothing. */
export function signQuote(secret: string, payload: Omit<QuotePayload, 'v' | 'nonce'>): string {
  const body = Buffer.from(JSON.stringify({ v: 1, ...payload, nonce: randomBytes(12).toString('base64url') })).toString('base64url');
  return `${PREFIX}${body}.${mac(secret, body).toString('base64url')}`;
}

export function verifyQuote(secret: string, token: string, nowMs: number): QuotePayload {
  const invalid = () => new AppError('invalid_request', 'resume_token is not a token this API issued.', { reason: 'invalid_resume_token' });
  if (!token.startsWith(PREFIX)) throw invalid();
  const [body, sig] = token.slice(PREFIX.length).split('.');
  if (!body || !sig) throw invalid();
  const expected = mac(secret, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as QuotePayload;
  if (payload.v !== 1) throw invalid();
  if (payload.exp * 1000 < nowMs) {
    throw new AppError('quote_expired', 'This quote has expired; request a new one.', {
      expired_at: new Date(payload.exp * 1000).toISOString(),
    });
  }
  return payload;
}
