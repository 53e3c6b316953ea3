import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
/**
 * N=2^17 (r=8) costs 128 MiB and a few hundred ms per guess: slow for an offline attacker with a
 * stolen table, once per sign-in for a user. Node's default maxmem (32 MiB) is below that.
 */
const PARAMS = { N: 2 ** 17, r: 8, p: 1 };
const maxmem = (n: number) => 128 * n * PARAMS.r + 32 * 1024 * 1024;
/** Stored costs outside this range are refused rather than computed (a tampered row must not stall sign-in). */
const MIN_N = 2 ** 10;
const MAX_N = 2 ** 20;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, { ...PARAMS, maxmem: maxmem(PARAMS.N) });
  return `scrypt$${PARAMS.N}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export interface Verified {
  ok: boolean;
  /** the hash was made with a lower cost than today's: store a fresh one now that the password is known */
  needsRehash: boolean;
}

export async function verifyPassword(password: string, stored: string | null): Promise<Verified> {
  const no = { ok: false, needsRehash: false };
  if (!stored) return no;
  const [alg, n, salt, hash] = stored.split('$');
  const N = Number(n);
  if (alg !== 'scrypt' || !salt || !hash || !Number.isInteger(N) || N < MIN_N || N > MAX_N) return no;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, { ...PARAMS, N, maxmem: maxmem(N) });
  const ok = timingSafeEqual(expected, actual);
  return { ok, needsRehash: ok && N < PARAMS.N };
}

export { tokenHash } from '../../platform/ids.js';
