/**
 * Cut-outs kept on disk by content hash and segmenter version, shared by every worker child of a
 * machine: a photo segmented by one child (or before a restart) is not segmented again by another,
 * whichever child a retry or a second product with the same photo lands on. The in-process map in
 * the image pipeline stays in front of it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { CutoutInfo, SegmentResult } from './segment-types.js';

/** Entries kept; beyond it the least recently written go. A 12-MP alpha is about 0.3 MB as PNG. */
export const CUTOUT_CACHE_ENTRIES = 400;

/** File names from a hash of the key: a segmenter version may hold any character. */
function files(dir: string, key: string) {
  const base = join(dir, createHash('sha256').update(key).digest('hex'));
  return { alpha: `${base}.png`, info: `${base}.json` };
}

/** The cached cut-out for `key` (content hash and segmenter version), or null; a damaged entry counts as missing. */
export async function readCachedCut(dir: string, key: string): Promise<SegmentResult | null> {
  const { alpha, info } = files(dir, key);
  try {
    const meta = JSON.parse(await readFile(info, 'utf8')) as { width: number; height: number; cutout: CutoutInfo };
    const decoded = await sharp(await readFile(alpha)).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    if (decoded.info.width !== meta.width || decoded.info.height !== meta.height) return null;
    return { alpha: new Uint8Array(decoded.data), width: meta.width, height: meta.height, cutout: meta.cutout };
  } catch {
    return null;
  }
}

/**
 * Stores a cut-out. Each file is written under a temporary name and renamed, the mask before its
 * description, so a reader sees a whole entry or none. Failing to cache never fails the image.
 */
export async function writeCachedCut(dir: string, key: string, cut: SegmentResult): Promise<void> {
  const { alpha, info } = files(dir, key);
  const part = `.${process.pid}.${randomBytes(4).toString('hex')}.part`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const png = await sharp(cut.alpha, { raw: { width: cut.width, height: cut.height, channels: 1 } }).png({ compressionLevel: 6 }).toBuffer();
    await writeFile(alpha + part, png, { mode: 0o600 });
    await rename(alpha + part, alpha);
    await writeFile(info + part, JSON.stringify({ width: cut.width, height: cut.height, cutout: cut.cutout }), { mode: 0o600 });
    await rename(info + part, info);
    await prune(dir);
  } catch {
    await Promise.all([rm(alpha + part, { force: true }), rm(info + part, { force: true })]).catch(() => {});
  }
}

async function prune(dir: string): Promise<void> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  if (names.length <= CUTOUT_CACHE_ENTRIES) return;
  const dated = await Promise.all(names.map(async (n) => ({ n, at: (await stat(join(dir, n)).catch(() => null))?.mtimeMs ?? 0 })));
  dated.sort((a, b) => a.at - b.at);
  for (const { n } of dated.slice(0, dated.length - CUTOUT_CACHE_ENTRIES)) {
    const base = join(dir, n.slice(0, -'.json'.length));
    await Promise.all([rm(`${base}.json`, { force: true }), rm(`${base}.png`, { force: true })]);
  }
}
