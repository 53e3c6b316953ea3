import { randomBytes } from 'node:crypto';

/** Crockford base32: sortable as text, no ambiguous letters. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'org' | 'usr' | 'proj' | 'key' | 'sess' | 'prod' | 'img' | 'wh' | 'whd' | 'evt' | 'exp' | 'job' | 'upl' | 'led' | 'quo' | 'bev';

let lastMs = 0;
let lastRand: Buffer = Buffer.alloc(10);

/**
 * `prefix_` + 10 chars of millisecond time + 16 chars of randomness (ULID layout).
 * Within one millisecond the random part is incremented, so ids made by one process sort in creation order.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  let rand: Buffer;
  if (now <= lastMs) {
    rand = Buffer.from(lastRand);
    for (let i = rand.length - 1; i >= 0; i--) {
      rand[i] = (rand[i] + 1) & 0xff;
      if (rand[i] !== 0) break;
    }
    now = lastMs;
  } else {
    rand = randomBytes(10);
  }
  lastMs = now;
  lastRand = rand;
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let bits = 0n;
  for (const b of rand) bits = (bits << 8n) | BigInt(b);
  let tail = '';
  for (let i = 0; i < 16; i++) {
    tail = ALPHABET[Number(bits & 31n)] + tail;
    bits >>= 5n;
  }
  return `${prefix}_${time}${tail}`;
}

/** Opaque random token material (keys, sessions, secrets). */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
