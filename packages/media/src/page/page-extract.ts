import { load, type CheerioAPI } from 'cheerio';
import { findJsonLdProduct } from './page-json-ld.js';

export interface PageProduct {
  title: string | null;
  /** absolute http(s), deduped, in page order of preference, at most MAX_IMAGES */
  imageUrls: string[];
  source: 'json-ld' | 'open-graph' | 'img' | 'none';
}

const MAX_IMAGES = 24;
/** `<img>` smaller than this (when the page says so) are thumbnails, icons or pixels. */
const MIN_IMG_SIDE = 300;
/** Words that mark page furniture rather than merchandise, as whole path/class segments. */
const FURNITURE = /(^|[^a-z])(logos?|icons?|favicons?|sprites?|avatars?|badges?|spinners?|loaders?|placeholders?|spacers?|pixel|tracking)([^a-z]|$)/i;
const TRACKERS = /(facebook\.com\/tr|google-analytics\.com|googletagmanager\.com|doubleclick\.net|bat\.bing\.com|\/pixel\?)/i;
const OG_KEYS = ['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src'];

function resolveBase($: CheerioAPI, pageUrl: string): string {
  const href = $('base[href]').first().attr('href');
  if (!href) return pageUrl;
  try {
    return new URL(href.trim(), pageUrl).href;
  } catch {
    return pageUrl;
  }
}

function absolute(raw: string, base: string): string | null {
  const trimmed = raw.trim();
  if (!trimmed || /^data:/i.test(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (/\.(svgz?|ico)$/i.test(url.pathname)) return null;
  url.hash = '';
  return url.href;
}

/** Dedupe (http and https of one picture count once, https wins) and cap. */
function finalize(raw: readonly string[], base: string, skip?: (url: string) => boolean): string[] {
  const byKey = new Map<string, string>();
  for (const r of raw) {
    const url = absolute(r, base);
    if (!url || skip?.(url)) continue;
    const key = url.replace(/^https?:/, '');
    const seen = byKey.get(key);
    if (!seen) {
      if (byKey.size >= MAX_IMAGES) break;
      byKey.set(key, url);
    } else if (seen.startsWith('http:') && url.startsWith('https:')) {
      byKey.set(key, url);
    }
  }
  return [...byKey.values()];
}

function furniture(url: string): boolean {
  if (TRACKERS.test(url)) return true;
  try {
    return FURNITURE.test(decodeURIComponent(new URL(url).pathname));
  } catch {
    return FURNITURE.test(url);
  }
}

function cleanTitle(t: string | null | undefined): string | null {
  if (!t) return null;
  const s = t.replace(/\s+/g, ' ').trim();
  return s ? s.slice(0, 300) : null;
}

function metaContent($: CheerioAPI, key: string): string[] {
  const out: string[] = [];
  $('meta').each((_, el) => {
    const m = $(el);
    const name = (m.attr('property') ?? m.attr('name') ?? m.attr('itemprop') ?? '').trim().toLowerCase();
    const content = m.attr('content');
    if (name === key && content) out.push(content);
  });
  return out;
}

function openGraphImages($: CheerioAPI): string[] {
  const out: string[] = [];
  // Document order across all keys: pages list og:image, then its :secure_url, then the next one.
  $('meta').each((_, el) => {
    const m = $(el);
    const name = (m.attr('property') ?? m.attr('name') ?? '').trim().toLowerCase();
    const content = m.attr('content');
    if (content && OG_KEYS.includes(name)) out.push(content);
  });
  return out;
}

/** Largest candidate of a srcset, by width descriptor, else density, else the last one. */
export function largestFromSrcset(srcset: string): string | null {
  const candidates: { url: string; w: number; x: number }[] = [];
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && /[\s,]/.test(srcset[i])) i++;
    let url = '';
    while (i < srcset.length && !/\s/.test(srcset[i])) url += srcset[i++];
    let descriptor = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      while (i < srcset.length && srcset[i] !== ',') descriptor += srcset[i++];
    }
    if (!url) continue;
    const w = /(\d+)w/.exec(descriptor);
    const x = /(\d*\.?\d+)x/.exec(descriptor);
    candidates.push({ url, w: w ? Number(w[1]) : 0, x: x ? Number(x[1]) : 1 });
  }
  if (!candidates.length) return null;
  return candidates.reduce((best, c) => (c.w > best.w || (c.w === best.w && c.x > best.x) ? c : best)).url;
}

function dimension(v: string | undefined): number | null {
  if (!v) return null;
  const n = parseInt(v, 10);
  return Number.isFinite(n) && !/%/.test(v) ? n : null;
}

/** Content images: microdata product pictures first, then large `<img>` that are not site chrome. */
function largeImages($: CheerioAPI): string[] {
  const out: string[] = [];
  $('[itemprop="image"]').each((_, el) => {
    const node = $(el);
    const url = node.attr('content') ?? node.attr('href') ?? node.attr('data-src') ?? node.attr('src');
    if (url) out.push(url);
  });
  $('img').each((_, el) => {
    const img = $(el);
    if (img.closest('nav, footer').length) return;
    if (img.closest('header').length && !img.closest('main, article').length) return;
    const w = dimension(img.attr('width'));
    const h = dimension(img.attr('height'));
    if ((w !== null && w < MIN_IMG_SIDE) || (h !== null && h < MIN_IMG_SIDE)) return;
    // Alt text is prose about the product ("star-shaped earrings"); only class and id are markup.
    const hints = [img.attr('class'), img.attr('id')].filter(Boolean).join(' ');
    if (FURNITURE.test(hints) || /^\s*(logo|icon)\b/i.test(img.attr('alt') ?? '')) return;

    const zoom = img.attr('data-zoom-image') ?? img.attr('data-large_image') ?? img.attr('data-large') ?? img.attr('data-full');
    const sets = [img.attr('data-srcset'), img.attr('srcset')];
    img.parent('picture').children('source').each((__, s) => {
      sets.push($(s).attr('data-srcset') ?? $(s).attr('srcset'));
    });
    const fromSet = sets.map((s) => (s ? largestFromSrcset(s) : null)).find(Boolean);
    const lazy = img.attr('data-src') ?? img.attr('data-lazy-src') ?? img.attr('data-original');
    const src = zoom ?? fromSet ?? lazy ?? img.attr('src');
    if (src) out.push(src);
  });
  return out;
}

export function extractProduct(html: string, pageUrl: string): PageProduct {
  const $ = load(html);
  const base = resolveBase($, pageUrl);

  const blocks: string[] = [];
  $('script').each((_, el) => {
    const type = ($(el).attr('type') ?? '').toLowerCase();
    if (type.split(';')[0].trim() === 'application/ld+json') blocks.push($(el).text());
  });
  const product = findJsonLdProduct(blocks);

  const ogTitle = metaContent($, 'og:title')[0];
  const title =
    cleanTitle(product?.name) ?? cleanTitle(ogTitle) ?? cleanTitle($('title').first().text());

  const fromJsonLd = finalize(product?.images ?? [], base);
  if (fromJsonLd.length) return { title, imageUrls: fromJsonLd, source: 'json-ld' };
  const fromOg = finalize(openGraphImages($), base, furniture);
  if (fromOg.length) return { title, imageUrls: fromOg, source: 'open-graph' };
  const fromImg = finalize(largeImages($), base, furniture);
  if (fromImg.length) return { title, imageUrls: fromImg, source: 'img' };
  return { title, imageUrls: [], source: 'none' };
}
