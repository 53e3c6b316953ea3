import { writeFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/app.js';

let t: TestApp;
let browser: Browser;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: t.config.tools.chromium, args: ['--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/docs', { timeout: 120_000 }, () => {
  it('shows the branded reference with the getting-started guide, from this origin only, within its CSP', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const violations: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => /Content Security Policy|Refused to/i.test(m.text()) && violations.push(m.text()));
    page.on('request', (r) => !r.url().startsWith(base) && !r.url().startsWith('data:') && !r.url().startsWith('blob:') && foreign.push(r.url()));
    const res = await page.goto(`${base}/docs/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/script-src 'self' 'sha256-/);
    await page.getByRole('heading', { name: 'Getting started' }).waitFor({ timeout: 60_000 });
    expect(await page.title()).toBe('Plinth API reference');
    // The operations are listed under their tags.
    await page.getByText('Products', { exact: true }).first().waitFor();
    writeFileSync(`${process.env.PLINTH_DOCS_SHOT ?? '/tmp'}/docs.png`, await page.screenshot());
    expect(violations).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });
});
