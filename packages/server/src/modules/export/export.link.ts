import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../core/errors.js';

export const LINK_TTL_SECONDS = 7 * 24 * 3600;

const sign = (secret: string, id: string, expires: number) =>
  createHmac('sha256', secret).update(`plinth-export-download\n${id}\n${expires}`).digest('base64url');

/** A download link works without an API key: it is the export id, an expiry, and an HMAC over both. */
export function downloadUrl(publicUrl: string, secret: string, exportId: string, nowMs: number): string {
  const expires = Math.floor(nowMs / 1000) + LINK_TTL_SECONDS;
  return `${publicUrl}/v1/exports/${exportId}/download?expires=${expires}&signature=${sign(secret, exportId, expires)}`;
}

export function verifyDownload(secret: string, exportId: string, expires: number, signature: string, nowMs: number): void {
  const expected = Buffer.from(sign(secret, exportId, expires));
  const given = Buffer.from(signature);
  // Every refusal reads the same, so a link cannot be probed for which part is wrong.
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || expires * 1000 < nowMs) {
    throw new AppError('not_found', 'This download link is invalid or has expired.');
  }
}
