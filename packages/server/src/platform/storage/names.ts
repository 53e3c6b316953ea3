import { randomBytes } from 'node:crypto';

/**
 * Names of stored files. Record ids are time-ordered (sortable ULIDs), so two made in the same
 * millisecond differ by one: fine for a database key behind authorization, fatal for a file name that
 * a URL exposes. File names therefore carry their own 160 bits of crypto randomness and no time.
 *
 * Two kinds of key, told apart by their shape alone so that no lookup can go wrong:
 * - browser assets (thumbnails, masks, finished renders, product models) live under
 *   `orgs/<org>/products/<product>/pub/<random><suffix>` and are the only keys `/files/` serves;
 * - everything else (uploads, originals) is private and read only through an authenticated route.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const NAME_LENGTH = 32;

/** 32 base32 characters from 20 random bytes (160 bits). */
export function randomName(): string {
  const bytes = randomBytes(20);
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** `.glb`, `.thumb.webp`: lower-case dot-separated parts only. */
function checkSuffix(suffix: string): void {
  if (!/^(\.[a-z0-9]{1,10}){1,2}$/.test(suffix)) throw new Error(`bad file suffix ${JSON.stringify(suffix)}`);
}

export const productFilesPrefix = (p: { orgId: string; id: string }) => `orgs/${p.orgId}/products/${p.id}/`;

/** A key `/files/` will serve: a product's browser asset with a random name. */
export function browserAssetKey(product: { orgId: string; id: string }, suffix: string): string {
  checkSuffix(suffix);
  return `${productFilesPrefix(product)}pub/${randomName()}${suffix}`;
}

/** A key `/files/` never serves: an original kept for processing or a model's master, read back only by its organization. */
export function privateProductKey(product: { orgId: string; id: string }, folder: 'originals' | 'masters', suffix: string): string {
  checkSuffix(suffix);
  return `${productFilesPrefix(product)}${folder}/${randomName()}${suffix}`;
}

/** Where an organization's uploads are kept; never served by `/files/`. */
export const uploadsPrefix = (orgId: string) => `orgs/${orgId}/uploads/`;

export function uploadKey(orgId: string, suffix: string): { name: string; key: string } {
  checkSuffix(suffix);
  const name = `${randomName()}${suffix}`;
  return { name, key: `${uploadsPrefix(orgId)}${name}` };
}

const ID = '[A-Za-z0-9_]{1,64}';
const BROWSER_ASSET = new RegExp(`^orgs/${ID}/products/${ID}/pub/[${ALPHABET}]{${NAME_LENGTH}}(\\.[a-z0-9]{1,10}){1,2}$`);

/** Allow-list, not deny-list: a key of any other shape (an upload, an original, a legacy name) is not public. */
export function isBrowserAssetKey(key: string): boolean {
  return BROWSER_ASSET.test(key);
}

/** The organization a key belongs to, from its `orgs/<org>/` prefix. */
export function orgOfKey(key: string): string | null {
  const m = new RegExp(`^orgs/(${ID})/`).exec(key);
  return m ? m[1] : null;
}
