import type { Readable } from 'node:stream';
import type { Deps } from '../../deps.js';
import { notFound } from '../../core/errors.js';
import { isBrowserAssetKey, orgOfKey } from '../../platform/storage/names.js';
import { BlobNotFoundError, type StoredObject } from '../../platform/storage/types.js';
import type { Principal } from '../../core/principal.js';

export interface OpenedFile {
  head: StoredObject;
  body: Readable;
}

async function open(deps: Deps, key: string): Promise<OpenedFile> {
  const head = await deps.storage.head(key).catch(() => null);
  if (!head) throw notFound('file');
  try {
    return { head, body: await deps.storage.get(key) };
  } catch (err) {
    if (err instanceof BlobNotFoundError) throw notFound('file');
    throw err;
  }
}

/** Anyone may load a browser asset; any other key (upload, original, legacy name) does not exist here. */
export async function openPublicFile(deps: Deps, key: string): Promise<OpenedFile> {
  if (!isBrowserAssetKey(key)) throw notFound('file');
  return open(deps, key);
}

/**
 * Any file of the caller's own organizations, private ones included. Another organization's key is
 * a 404, exactly like a key that does not exist, so a probe learns nothing.
 */
export async function openOwnFile(deps: Deps, principal: Principal, key: string): Promise<OpenedFile> {
  const orgId = orgOfKey(key);
  // Private files (uploads, originals, model masters) are for secret keys and sessions only.
  if (principal.kind === 'publishable_key') throw notFound('file');
  if (!orgId || !principal.orgIds.includes(orgId)) throw notFound('file');
  return open(deps, key);
}
