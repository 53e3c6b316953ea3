import { createHash, randomBytes, randomFillSync } from 'node:crypto';

/** Crockford base32: sortable as text, no ambiguous letters. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'org' | 'usr' | 'proj' | 'key' | 'sess' | 'prod' | 'img' | 'wh' | 'whd' | 'evt' | 'exp' | 'expt' | 'job' | 'upl' | 'led' | 'quo';

/** Random bytes drawn from the system in blocks: one system call per 4,096, not one per id. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

let lastMs = -1;
let lastTime = '';
/** the 80 random bits as 16 base32 digits (0–31), most significant first */
const digits = new Uint8Array(16);

/**
 * `prefix_` + 10 chars of millisecond time + 16 chars of randomness (ULID layout).
 * Within one millisecond the random part is incremented, so ids made by one process sort in creation order.
 * The 80 random bits are kept as 16 five-bit digits, so no wide integer is ever needed: incrementing
 * the digits with carry is incrementing the 80-bit number.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  if (now <= lastMs) {
    for (let i = 15; i >= 0; i--) {
      digits[i] = (digits[i] + 1) & 31;
      if (digits[i] !== 0) break;
    }
  } else {
    if (poolAt + 16 > pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    for (let i = 0; i < 16; i++) digits[i] = pool[poolAt++] & 31;
    lastMs = now;
    lastTime = '';
    let t = now;
    for (let i = 0; i < 10; i++) {
      lastTime = ALPHABET[t % 32] + lastTime;
      t = Math.floor(t / 32);
    }
  }
  let tail = '';
  for (let i = 0; i < 16; i++) tail += ALPHABET[digits[i]];
  return `${prefix}_${lastTime}${tail}`;
}

/** Opaque random token material (keys, sessions, secrets). */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** Keys and session tokens are stored as SHA-256: they are long random values, so no salt or stretching is needed. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
