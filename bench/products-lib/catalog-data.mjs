// Writes a large catalogue straight into a migrated Plinth SQLite database: products, their
// product_tags rows (what tag filters read) and images (what every list page loads). Going
// through the API would take hours for 100k products; the rows below are what the API writes.
import Database from 'better-sqlite3';

/** Deterministic, so every run lists the same catalogue. */
export function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';

/** Same layout as the server's ids (prefix, 10 chars of ms time, 16 random), so they sort by creation. */
function makeId(prefix, ms, rand) {
  let time = '';
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = BASE32[t % 32] + time;
  let tail = '';
  for (let i = 0; i < 16; i++) tail += BASE32[Math.floor(rand() * 32)];
  return `${prefix}_${time}${tail}`;
}

const NOUNS = ['chair', 'sofa', 'table', 'lamp', 'shelf', 'rug', 'vase', 'bed', 'desk', 'stool'];
const ADJECTIVES = ['oak', 'walnut', 'linen', 'velvet', 'brass', 'marble', 'rattan', 'ceramic', 'steel', 'wool'];

/** 50 tags of a furniture shop, from broad (room, category) to narrow (collection). */
export const TAGS = [
  'living-room', 'bedroom', 'outdoor', 'dining', 'office', 'kids', 'bathroom', 'hallway', 'kitchen', 'garden',
  'chairs', 'sofas', 'tables', 'lighting', 'storage', 'rugs', 'decor', 'beds', 'desks', 'textiles',
  'oak', 'walnut', 'linen', 'velvet', 'brass', 'marble', 'rattan', 'ceramic', 'steel', 'wool',
  'sale', 'new', 'bestseller', 'eco', 'handmade', 'limited', 'clearance', 'premium', 'compact', 'modular',
  'nordic', 'industrial', 'boho', 'classic', 'mid-century', 'coastal', 'farmhouse', 'art-deco', 'japandi', 'minimal',
];

/**
 * Tag popularity follows a Zipf-like curve over a shuffled order: a few tags are on a large share
 * of the catalogue, most on a few percent, as shop taxonomies go.
 */
function tagPicker(rand) {
  const order = TAGS.map((t, i) => [t, prng(1000 + i)()]).sort((a, b) => a[1] - b[1]).map(([t]) => t);
  const cdf = [];
  let sum = 0;
  for (let k = 0; k < order.length; k++) cdf.push((sum += 1 / (k + 1)));
  return {
    byPopularity: order,
    pick() {
      const u = rand() * sum;
      let lo = 0;
      let hi = cdf.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cdf[mid] < u) lo = mid + 1;
        else hi = mid;
      }
      return order[lo];
    },
  };
}

/**
 * options: { file, orgId, products = 100_000, seed = 42, imagesPerProduct = [1, 3], tagsPerProduct = [1, 4] }
 * Returns { products, tags, images, ms, tagCounts: Map(tag → products), byPopularity }.
 */
export function generateCatalog(o) {
  const started = Date.now();
  const rand = prng(o.seed ?? 42);
  const count = o.products ?? 100_000;
  const [minTags, maxTags] = o.tagsPerProduct ?? [1, 4];
  const [minImages, maxImages] = o.imagesPerProduct ?? [1, 3];
  const picker = tagPicker(rand);
  const db = new Database(o.file);
  // Bulk load only: the server reopens the file with its own durable settings.
  db.pragma('synchronous = OFF');

  const insertProduct = db.prepare(`insert into products (id, org_id, title, custom_id, status, model_status, model, thumbnail_key,
      tags, source, generate_model, analysis, images_status, progress, step, error, created_at, updated_at, published_at)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'done', ?, 100, 'done', null, ?, ?, ?)`);
  const insertTag = db.prepare('insert into product_tags (product_id, org_id, tag) values (?, ?, ?)');
  const insertImage = db.prepare(`insert into images (id, product_id, org_id, position, origin, review_status, settings, storage_key,
      content_type, mask_key, thumb_key, width, height, bytes, sha256, analysis, source_url, error, created_at, updated_at)
    values (?, ?, ?, ?, 'fetched', ?, '{}', ?, 'image/jpeg', ?, ?, 2000, 2000, ?, ?, null, ?, null, ?, ?)`);

  const tagCounts = new Map();
  let tagRows = 0;
  let imageRows = 0;
  const end = Date.now() - 3_600_000;
  const span = 365 * 86_400_000;
  const write = db.transaction(() => {
    for (let n = 0; n < count; n++) {
      // Evenly spread over the past year, in id order, as a catalogue grows.
      const ms = Math.floor(end - span + (span * n) / count);
      const at = new Date(ms).toISOString();
      const id = makeId('prod', ms, rand);
      const prefix = `orgs/${o.orgId}/products/${id}/`;
      const r = rand();
      const status = r < 0.7 ? 'published' : r < 0.95 ? 'draft' : 'archived';
      const ready = status === 'published' || rand() < 0.6;
      const modelStatus = ready ? 'ready' : ['none', 'queued', 'failed'][Math.floor(rand() * 3)];
      const model = ready
        ? JSON.stringify({
            glbKey: `${prefix}model/v1.glb`,
            usdzKey: `${prefix}model/v1.usdz`,
            decision: 'accepted',
            dimensions: { width: 0.4 + rand(), height: 0.3 + rand(), depth: 0.3 + rand() },
            triangles: 5_000 + Math.floor(rand() * 95_000),
            bytes: 200_000 + Math.floor(rand() * 4_000_000),
            settings: {},
            origin: 'generated',
          })
        : null;

      const wanted = minTags + Math.floor(rand() * (maxTags - minTags + 1));
      const tags = new Set();
      while (tags.size < wanted) tags.add(picker.pick());
      const title = `${ADJECTIVES[Math.floor(rand() * ADJECTIVES.length)]} ${NOUNS[Math.floor(rand() * NOUNS.length)]} ${n}`;
      const images = minImages + Math.floor(rand() * (maxImages - minImages + 1));
      const urls = Array.from({ length: images }, (_, i) => `https://cdn.shop.example/p/${n}/${i}.jpg`);

      insertProduct.run(
        id, o.orgId, title, `SKU-${String(n).padStart(6, '0')}`, status, modelStatus, model, ready ? `${prefix}thumb.webp` : null,
        JSON.stringify([...tags]), JSON.stringify({ kind: 'image_urls', image_urls: urls }), 1, 'ready',
        at, at, status === 'published' ? at : null,
      );
      for (const tag of tags) {
        insertTag.run(id, o.orgId, tag);
        tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
        tagRows++;
      }
      for (let i = 0; i < images; i++) {
        const imageId = makeId('img', ms, rand);
        insertImage.run(
          imageId, id, o.orgId, i, rand() < 0.8 ? 'accepted' : 'pending', `${prefix}images/${imageId}.jpg`,
          `${prefix}images/${imageId}.mask.png`, `${prefix}images/${imageId}.thumb.webp`,
          150_000 + Math.floor(rand() * 600_000), rand().toString(16).slice(2).padEnd(64, '0'), urls[i], at, at,
        );
        imageRows++;
      }
    }
  });
  write();
  db.close();
  return { products: count, tags: tagRows, images: imageRows, ms: Date.now() - started, tagCounts, byPopularity: picker.byPopularity };
}
