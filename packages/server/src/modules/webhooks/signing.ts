import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EndpointRecord } from './webhooks.types.js';

/**
 * `whsec_` + standard base64 of 32 random bytes: the format the Standard Webhooks libraries decode,
 * so receivers can pass the secret to them unchanged.
 */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secrets a delivery is signed with now: the current one, plus the previous one for 24 h after a rotation. */
export function signingSecrets(endpoint: EndpointRecord, now: Date): string[] {
  const previousValid =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && Date.parse(endpoint.previousSecretExpiresAt) > now.getTime();
  return previousValid ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}

/**
 * The Standard Webhooks headers. `webhook-id` is the event id, so every attempt of one event carries
 * the same id and receivers can drop repeats; the timestamp is the attempt's own, which is why a
 * retry is signed afresh. Several signatures are separated by spaces; a receiver accepts any one.
 */
export function signatureHeaders(secrets: string[], messageId: string, body: string, at: Date): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, at, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
