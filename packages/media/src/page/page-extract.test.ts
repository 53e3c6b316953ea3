import { describe, expect, it } from 'vitest';
import { extractProduct, largestFromSrcset } from './page-extract.js';
import { parseJsonLd } from './page-json-ld.js';

const PAGE = 'https://shop.example.com/products/teapot?variant=2';

function page(head: string, body = ''): string {
  return `<!doctype html><html><head><title>Teapot | Example Shop</title>${head}</head><body>${body}</body></html>`;
}

function ld(value: unknown): string {
  return `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
}

const OG = `
  <meta property="og:title" content="Teapot &amp; Cups (OG)">
  <meta property="og:image" content="https://cdn.example.com/og/teapot.jpg">
  <meta property="og:image:secure_url" content="https://cdn.example.com/og/teapot.jpg">
  <meta property="og:image" content="/og/teapot-side.jpg">
  <meta name="twitter:image" content="https://cdn.example.com/tw/teapot.jpg">`;

describe('extractProduct: JSON-LD', () => {
  it('reads a plain Product with a string image and prefers it over Open Graph', () => {
    const html = page(OG + ld({ '@context': 'https://schema.org', '@type': 'Product', name: 'Teapot', image: '/img/teapot-1.jpg' }));
    expect(extractProduct(html, PAGE)).toEqual({
      title: 'Teapot',
      imageUrls: ['https://shop.example.com/img/teapot-1.jpg'],
      source: 'json-ld',
    });
  });

  it('finds the Product inside @graph and follows @id references to ImageObjects', () => {
    const html = page(
      ld({
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'WebSite', '@id': 'https://shop.example.com/#site', name: 'Example Shop', image: { '@id': '#logo' } },
          { '@type': 'ImageObject', '@id': '#primaryimage', contentUrl: 'https://cdn.example.com/teapot-main.jpg' },
          {
            '@type': ['Thing', 'http://schema.org/Product'],
            name: ['Porcelain Teapot'],
            image: [{ '@id': '#primaryimage' }, { '@type': 'ImageObject', url: 'teapot-back.jpg' }, 'https://cdn.example.com/teapot-main.jpg'],
            isSimilarTo: { '@type': 'Product', name: 'Kettle', image: 'https://cdn.example.com/kettle.jpg' },
          },
        ],
      }),
    );
    const out = extractProduct(html, PAGE);
    expect(out.title).toBe('Porcelain Teapot');
    expect(out.source).toBe('json-ld');
    expect(out.imageUrls).toEqual(['https://cdn.example.com/teapot-main.jpg', 'https://shop.example.com/products/teapot-back.jpg']);
  });

  it('collects a ProductGroup and its variants, in a top-level array, after a broken block', () => {
    const html = page(
      '<script type="application/ld+json">{ "@type": "Product", "name": </script>' +
        ld([
          { '@type': 'BreadcrumbList', itemListElement: [] },
          {
            '@type': 'ProductGroup',
            name: 'Mug',
            image: { '@type': 'ImageObject', contentUrl: ['//cdn.example.com/mug.jpg'] },
            hasVariant: [
              { '@type': 'Product', name: 'Mug red', image: ['https://cdn.example.com/mug-red.jpg'] },
              { '@type': 'Product', name: 'Mug blue', image: { url: 'https://cdn.example.com/mug-blue.jpg' } },
            ],
          },
        ]),
    );
    expect(extractProduct(html, PAGE)).toEqual({
      title: 'Mug',
      imageUrls: ['https://cdn.example.com/mug.jpg', 'https://cdn.example.com/mug-red.jpg', 'https://cdn.example.com/mug-blue.jpg'],
      source: 'json-ld',
    });
  });

  it('repairs trailing commas, raw newlines, CDATA and HTML entities', () => {
    const raw = `//<![CDATA[
      {"@type": "Product", "name": "Cup &amp; Saucer
      set", "image": ["https://cdn.example.com/cup.jpg?w=1200&amp;h=1200",],}
      //]]>`;
    expect(parseJsonLd(raw)).toMatchObject({ '@type': 'Product' });
    const html = page(`<script type="application/ld+json; charset=utf-8">${raw}</script>`);
    expect(extractProduct(html, PAGE)).toEqual({
      title: 'Cup & Saucer set',
      imageUrls: ['https://cdn.example.com/cup.jpg?w=1200&h=1200'],
      source: 'json-ld',
    });
  });

  it('keeps the JSON-LD name but falls back to Open Graph images when the Product has none', () => {
    const html = page(OG + ld({ '@type': 'Product', name: 'Teapot, imageless' }));
    const out = extractProduct(html, PAGE);
    expect(out.title).toBe('Teapot, imageless');
    expect(out.source).toBe('open-graph');
  });

  it('survives garbage that is not JSON at all', () => {
    const html = page('<script type="application/ld+json">window.x = {"@type": "Product"}; alert(1)</script>' + OG);
    expect(extractProduct(html, PAGE).source).toBe('open-graph');
  });
});

describe('extractProduct: Open Graph', () => {
  it('takes og:image and twitter:image in order, resolved and deduped', () => {
    const out = extractProduct(page(OG), PAGE);
    expect(out).toEqual({
      title: 'Teapot & Cups (OG)',
      imageUrls: [
        'https://cdn.example.com/og/teapot.jpg',
        'https://shop.example.com/og/teapot-side.jpg',
        'https://cdn.example.com/tw/teapot.jpg',
      ],
      source: 'open-graph',
    });
  });

  it('prefers the https variant of the same picture and ignores a logo as og:image', () => {
    const html = page(`
      <meta property="og:image" content="http://cdn.example.com/p/1.jpg">
      <meta property="og:image:secure_url" content="https://cdn.example.com/p/1.jpg">
      <meta property="og:image" content="https://cdn.example.com/assets/logo.png">`);
    expect(extractProduct(html, PAGE).imageUrls).toEqual(['https://cdn.example.com/p/1.jpg']);
  });
});

describe('extractProduct: <img> fallback', () => {
  it('keeps large images, lazy sources and the largest srcset candidate, honouring <base href>', () => {
    const body = `
      <header><img src="/static/brand.png" width="800" height="400"></header>
      <nav><img src="/menu/teapots.jpg"></nav>
      <main>
        <img src="/img/placeholder.gif" data-src="gallery/teapot-front.jpg" width="1000" height="1000">
        <img srcset="gallery/teapot-side-400.jpg 400w, gallery/teapot-side-1600.jpg 1600w, gallery/teapot-side-800.jpg 800w" src="gallery/teapot-side-400.jpg">
        <picture>
          <source srcset="gallery/teapot-top.webp 1x, gallery/teapot-top@2x.webp 2x" type="image/webp">
          <img src="gallery/teapot-top.jpg" alt="Star-shaped lid">
        </picture>
        <img src="gallery/thumb-1.jpg" width="120" height="120">
        <img src="/icons/cart.png">
        <img class="site-logo" src="/img/shop.png">
        <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
        <img src="/img/badge.svg" width="400" height="400">
        <img src="https://www.facebook.com/tr?id=1&ev=PageView" width="1" height="1">
        <img src="javascript:alert(1)">
        <img src="gallery/teapot-front.jpg#zoom">
      </main>
      <footer><img src="/img/payments.jpg"></footer>`;
    const html = `<html><head><base href="https://media.example.net/shop/"><title> Teapot   page </title></head><body>${body}</body></html>`;
    expect(extractProduct(html, PAGE)).toEqual({
      title: 'Teapot page',
      imageUrls: [
        'https://media.example.net/shop/gallery/teapot-front.jpg',
        'https://media.example.net/shop/gallery/teapot-side-1600.jpg',
        'https://media.example.net/shop/gallery/teapot-top@2x.webp',
      ],
      source: 'img',
    });
  });

  it('puts microdata product pictures first', () => {
    const body = `
      <img src="/banner/sale.jpg" width="1200" height="400">
      <div itemscope itemtype="https://schema.org/Product">
        <meta itemprop="image" content="/p/lamp-main.jpg">
        <img itemprop="image" src="/p/lamp-side.jpg" width="150" height="150">
      </div>`;
    expect(extractProduct(page('', body), PAGE).imageUrls).toEqual([
      'https://shop.example.com/p/lamp-main.jpg',
      'https://shop.example.com/p/lamp-side.jpg',
      'https://shop.example.com/banner/sale.jpg',
    ]);
  });

  it('caps the list at 24 images', () => {
    const body = Array.from({ length: 40 }, (_, i) => `<img src="/p/${i}.jpg" width="600" height="600">`).join('');
    const out = extractProduct(page('', body), PAGE);
    expect(out.imageUrls).toHaveLength(24);
    expect(out.imageUrls[0]).toBe('https://shop.example.com/p/0.jpg');
    expect(out.imageUrls[23]).toBe('https://shop.example.com/p/23.jpg');
  });

  it('returns no images and source none for a page without product pictures', () => {
    const body = `<nav><img src="/logo.png"></nav><p>Out of stock.</p><img src="/icons/x.svg"><img src="/a.jpg" width="32" height="32">`;
    expect(extractProduct(page('', body), PAGE)).toEqual({ title: 'Teapot | Example Shop', imageUrls: [], source: 'none' });
    expect(extractProduct('', PAGE)).toEqual({ title: null, imageUrls: [], source: 'none' });
  });
});

describe('largestFromSrcset', () => {
  it('handles commas inside URLs and density descriptors', () => {
    expect(largestFromSrcset('https://img.example.com/w_300,h_300/a.jpg 300w, https://img.example.com/w_900,h_900/a.jpg 900w')).toBe(
      'https://img.example.com/w_900,h_900/a.jpg',
    );
    expect(largestFromSrcset('a.jpg, b.jpg 2x, c.jpg 1.5x')).toBe('b.jpg');
    expect(largestFromSrcset('  ')).toBeNull();
  });
});
