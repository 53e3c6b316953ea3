import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { writeOrg } from '../../http/reach.js';
import { newId } from '../../platform/ids.js';
import type { Principal } from '../auth/principal.js';

const SIGNATURES: { type: string; ext: string; test: (b: Buffer) => boolean }[] = [
  { type: 'image/jpeg', ext: 'jpg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/png', ext: 'png', test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/gif', ext: 'gif', test: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8' },
  { type: 'image/webp', ext: 'webp', test: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
  { type: 'image/avif', ext: 'avif', test: (b) => b.subarray(4, 8).toString('latin1') === 'ftyp' && /^avi[fs]$/.test(b.subarray(8, 12).toString('latin1')) },
];

/** The type is read from the bytes, never trusted from the header or a file name. */
export function sniffImage(data: Buffer) {
  return SIGNATURES.find((s) => s.test(data)) ?? null;
}

export interface UploadJson {
  object: 'upload';
  path: string;
  bytes: number;
  content_type: string;
  sha256: string;
  created_at: string;
}

export async function storeUpload(deps: Deps, principal: Principal, data: Buffer, orgIdParam: string | undefined): Promise<UploadJson> {
  const orgId = writeOrg(principal, orgIdParam);
  if (data.length === 0) throw new AppError('validation_failed', 'The upload is empty.', { errors: [{ path: 'body', message: 'is empty' }] });
  const kind = sniffImage(data);
  if (!kind) {
    throw new AppError('unsupported_media_type', 'Uploads must be JPEG, PNG, WebP, AVIF or GIF images.', { accepted: SIGNATURES.map((s) => s.type) });
  }
  const id = newId('upl');
  const path = `uploads/${id}.${kind.ext}`;
  const storageKey = `orgs/${orgId}/${path}`;
  await deps.storage.put(storageKey, data, { contentType: kind.type });
  const at = deps.clock.now().toISOString();
  // The row goes in after the file: a crash in between leaves an orphan file, never a path that points nowhere.
  await deps.database.db
    .insertInto('uploads')
    .values({ id, org_id: orgId, path, storage_key: storageKey, bytes: data.length, content_type: kind.type, created_at: at })
    .execute();
  return {
    object: 'upload',
    path,
    bytes: data.length,
    content_type: kind.type,
    sha256: createHash('sha256').update(data).digest('hex'),
    created_at: at,
  };
}
