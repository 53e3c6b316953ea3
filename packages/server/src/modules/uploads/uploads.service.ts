import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Deps } from '../../deps.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { writeOrg } from '../../core/reach.js';
import { inTransaction, lockOrganization } from '../../platform/db/index.js';
import { newId } from '../../platform/ids.js';
import { uploadKey } from '../../platform/storage/names.js';
import type { Principal } from '../../core/principal.js';
import { checkUpload } from './uploads.check.js';
import { receiveToTemp, tooLarge, uploadTempDir } from './uploads.receive.js';
import { findUploads, insertUpload, markUploadsUsed, usedUploadBytes, type UploadRow } from './uploads.repo.js';

export interface UploadJson {
  object: 'upload';
  path: string;
  kind: 'image' | 'model';
  /** the file itself, for this organization's keys and sessions only */
  url: string;
  bytes: number;
  content_type: string;
  sha256: string;
  created_at: string;
}

const overQuota = (usedBytes: number, quotaBytes: number, incoming: number) =>
  new AppError('payload_too_large', 'This upload would exceed the organization\'s upload storage quota; use or delete earlier uploads first.', {
    reason: 'quota',
    used_bytes: usedBytes,
    quota_bytes: quotaBytes,
    upload_bytes: incoming,
  }, { Connection: 'close' });

/**
 * Receives one upload: streamed to a temp file under a byte cap, checked by decoding, counted against
 * the organization's quota, then streamed to storage under a random name. Nothing of a refused upload
 * is kept. The stored file is private: `/files/` never serves uploads.
 */
export async function storeUpload(
  deps: Deps,
  principal: Principal,
  body: Readable,
  opts: { orgId?: string; declaredBytes?: number; truncated?: () => boolean },
): Promise<UploadJson> {
  const orgId = writeOrg(principal, opts.orgId);
  const quota = deps.config.uploadQuotaBytes;
  // A declared length lets an oversized or over-quota upload be refused before a byte is read.
  const used = await usedUploadBytes(deps.database.db, orgId);
  if (opts.declaredBytes !== undefined && used + opts.declaredBytes > quota) throw overQuota(used, quota, opts.declaredBytes);
  const received = await receiveToTemp(body, uploadTempDir(deps.config.dataDir), deps.config.uploadLimitBytes);
  try {
    if (opts.truncated?.()) throw tooLarge(deps.config.uploadLimitBytes);
    const checked = await checkUpload(received.path, received.head, received.bytes);
    const id = newId('upl');
    const { name, key } = uploadKey(orgId, `.${checked.ext}`);
    const path = `uploads/${name}`;
    await deps.storage.put(key, createReadStream(received.path), { contentType: checked.contentType });
    const at = deps.clock.now().toISOString();
    try {
      // The quota is checked again under the organization's lock, so parallel uploads cannot overshoot it together.
      await inTransaction(deps.database.db, async (trx) => {
        await lockOrganization(trx, orgId);
        const now = await usedUploadBytes(trx, orgId);
        if (now + received.bytes > quota) throw overQuota(now, quota, received.bytes);
        await insertUpload(trx, { id, orgId, path, storageKey: key, bytes: received.bytes, contentType: checked.contentType, kind: checked.kind, createdAt: at });
      });
    } catch (err) {
      await deps.storage.delete(key).catch(() => {});
      throw err;
    }
    return {
      object: 'upload',
      path,
      kind: checked.kind,
      url: deps.storage.privateUrl(key),
      bytes: received.bytes,
      content_type: checked.contentType,
      sha256: received.sha256,
      created_at: at,
    };
  } finally {
    await received.remove();
  }
}

/**
 * The uploads a create names, checked in the caller's transaction: each must belong to this
 * organization (another's path is exactly as unknown as a made-up one) and be of the right kind.
 * They are marked used there, so the sweep never deletes what a product relies on.
 */
export async function takeUploads(
  db: Parameters<typeof findUploads>[0],
  orgId: string,
  field: 'image_paths' | 'model_path',
  paths: string[],
  use: { at: string; productId: string } | null,
): Promise<UploadRow[]> {
  const rows = await findUploads(db, orgId, paths);
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const want = field === 'model_path' ? 'model' : 'image';
  const errors = paths.flatMap((p, i) => {
    const where = field === 'model_path' ? 'body.model_path' : `body.image_paths[${i}]`;
    const row = byPath.get(p);
    if (!row) return [{ path: where, message: 'is not an upload of this organization' }];
    if (row.kind !== want) return [{ path: where, message: `is an upload of a ${row.kind}, not of ${want === 'model' ? 'a model' : 'an image'}` }];
    return [];
  });
  if (errors.length) throw validationFailed(errors);
  if (use) await markUploadsUsed(db, orgId, paths, use);
  return rows;
}

/**
 * How a model import job names an uploaded model: the job's payload carries a URL for fetched models,
 * and this reference (not a URL any fetcher accepts) for an upload, resolved only within its organization.
 */
const UPLOAD_REF = 'upload:';
export const uploadRef = (path: string) => `${UPLOAD_REF}${path}`;
export const isUploadRef = (value: string) => value.startsWith(UPLOAD_REF);

/** The bytes of an organization's upload named by a reference; null if it has none by that name. */
export async function readUploadRef(deps: Deps, orgId: string, ref: string): Promise<Buffer | null> {
  if (!isUploadRef(ref)) return null;
  const [row] = await findUploads(deps.database.db, orgId, [ref.slice(UPLOAD_REF.length)]);
  return row ? deps.storage.getBuffer(row.storageKey).catch(() => null) : null;
}

/** The storage key of each of these uploads of an organization that still exists, by path. */
export async function uploadStorageKeys(deps: Deps, orgId: string, paths: string[]): Promise<Map<string, string>> {
  return new Map((await findUploads(deps.database.db, orgId, paths)).map((u) => [u.path, u.storageKey]));
}
