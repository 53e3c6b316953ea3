/**
 * schema.org Product discovery in a page's JSON-LD. Shops emit it in every shape the spec allows
 * (and some it does not): arrays, @graph, @id references, ProductGroup with variants, HTML-escaped
 * strings, trailing commas. Everything here is best effort and never throws.
 */

export interface JsonLdProduct {
  name: string | null;
  /** as written in the page: possibly relative, not yet filtered */
  images: string[];
}

type Node = Record<string, unknown>;

const PRODUCT_TYPES = new Set(['product', 'productgroup', 'individualproduct', 'productmodel', 'someproducts']);
/** Properties that point at other products: their pictures are not this product's. */
const FOREIGN_KEYS = new Set(['isrelatedto', 'issimilarto', 'isaccessoryorsparepartfor', 'isconsumablefor', 'isvariantof', 'review', 'offers', 'brand', 'manufacturer', 'seller']);
const MAX_DEPTH = 12;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** JSON-LD is often written through an HTML template, leaving `&amp;` in names and URLs. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** Parse one `<script type="application/ld+json">` body, repairing the usual breakage once. */
export function parseJsonLd(text: string): unknown {
  const attempt = (s: string): unknown => {
    try {
      return JSON.parse(s);
    } catch {
      return undefined;
    }
  };
  const direct = attempt(text.trim());
  if (direct !== undefined) return direct;
  const repaired = text
    .replace(/^\s*(?:\/\/\s*)?<!\[CDATA\[|(?:\/\/\s*)?\]\]>\s*$/g, '')
    .replace(/^\s*<!--|-->\s*$/g, '')
    // Raw newlines/tabs inside strings are invalid JSON but common; as whitespace they are harmless.
    .replace(/[\u0000-\u001f]+/g, ' ')
    .replace(/,\s*([}\]])/g, '$1')
    .replace(/;\s*$/, '')
    .trim();
  return attempt(repaired);
}

function typesOf(node: Node): string[] {
  const t = node['@type'];
  const list = Array.isArray(t) ? t : [t];
  return list
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.replace(/^https?:\/\/schema\.org\//i, '').toLowerCase());
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    for (const item of v) {
      const t = text(item);
      if (t) return t;
    }
    return null;
  }
  if (isNode(v) && typeof v['@value'] === 'string') return v['@value'];
  return null;
}

/** Every node that carries an @id, so `{"@id": "…#primaryimage"}` references can be followed. */
function indexIds(value: unknown, ids: Map<string, Node>, depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const v of value) indexIds(v, ids, depth + 1);
    return;
  }
  if (!isNode(value)) return;
  const id = value['@id'];
  // A bare reference ({"@id": …} alone) must not shadow the full node.
  if (typeof id === 'string' && (Object.keys(value).length > 1 || !ids.has(id))) ids.set(id, value);
  for (const v of Object.values(value)) indexIds(v, ids, depth + 1);
}

function deref(v: unknown, ids: Map<string, Node>): unknown {
  if (isNode(v) && typeof v['@id'] === 'string' && Object.keys(v).length === 1) return ids.get(v['@id']) ?? v;
  return v;
}

function imageUrls(v: unknown, ids: Map<string, Node>, depth = 0): string[] {
  if (depth > 4 || v == null) return [];
  if (typeof v === 'string') return [decodeEntities(v.trim())].filter(Boolean);
  if (Array.isArray(v)) return v.flatMap((item) => imageUrls(item, ids, depth + 1));
  const node = deref(v, ids);
  if (!isNode(node)) return [];
  for (const key of ['contentUrl', 'url']) {
    const found = imageUrls(node[key], ids, depth + 1);
    if (found.length) return found;
  }
  // An unresolvable reference whose id is itself the picture's address.
  const id = node['@id'];
  if (typeof id === 'string' && /\.(jpe?g|png|webp|avif|gif)(\?|$)/i.test(id)) return [decodeEntities(id)];
  return [];
}

function productsIn(value: unknown, ids: Map<string, Node>, out: Node[], depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const v of value) productsIn(v, ids, out, depth + 1);
    return;
  }
  if (!isNode(value)) return;
  if (typesOf(value).some((t) => PRODUCT_TYPES.has(t))) {
    out.push(value);
    return; // its variants are collected with it, not as separate products
  }
  for (const [key, v] of Object.entries(value)) {
    if (FOREIGN_KEYS.has(key.toLowerCase())) continue;
    productsIn(v, ids, out, depth + 1);
  }
}

function describe(product: Node, ids: Map<string, Node>): JsonLdProduct {
  const name = text(product.name);
  const images = imageUrls(product.image, ids);
  const variants = product.hasVariant;
  for (const variant of Array.isArray(variants) ? variants : variants ? [variants] : []) {
    const node = deref(variant, ids);
    if (isNode(node)) images.push(...imageUrls(node.image, ids));
  }
  return { name: name ? decodeEntities(name) : null, images };
}

/** The page's main product: the first one (in document order) that has pictures, else the first one. */
export function findJsonLdProduct(blocks: readonly string[]): JsonLdProduct | null {
  const docs = blocks.map(parseJsonLd).filter((d) => d !== undefined);
  const ids = new Map<string, Node>();
  for (const doc of docs) indexIds(doc, ids);
  const products: Node[] = [];
  for (const doc of docs) productsIn(doc, ids, products);
  const described = products.map((p) => describe(p, ids));
  return described.find((p) => p.images.length > 0) ?? described[0] ?? null;
}
