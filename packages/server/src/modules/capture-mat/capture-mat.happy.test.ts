import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli.js';
import { createTestApp, type TestApp } from '../../test/app.js';

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = await mkdtemp(join(tmpdir(), 'plinth-mat-'));
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The squares' side in mm, read back from the page's drawing operators (mm → points by the stream's `cm`). */
function squareSidesMm(pdf: Buffer): number[] {
  const stream = /stream\n([\s\S]*?)endstream/.exec(pdf.toString('latin1'))![1];
  const scale = Number(/^([\d.]+) 0 0 -[\d.]+ 0 [\d.]+ cm$/m.exec(stream)![1]);
  return [...stream.matchAll(/^[\d.]+ [\d.]+ ([\d.]+) ([\d.]+) re$/gm)]
    .map((m) => [Number(m[1]), Number(m[2])])
    .filter(([w, h]) => w === h && w > 20)
    .map(([w]) => (w * scale * 25.4) / 72);
}

describe('GET /capture-mat.pdf', () => {
  it('serves the mat without a key, as a cacheable PDF with an ETag that answers 304', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/capture-mat.pdf' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.rawPayload.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
    const sides = squareSidesMm(res.rawPayload);
    expect(sides).toHaveLength(18);
    for (const side of sides) expect(side).toBeCloseTo(36, 4);
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await t.app.inject({ method: 'GET', url: '/capture-mat.pdf', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
  });

  it('is in the API reference as a public operation', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const op = doc.paths['/capture-mat.pdf'].get;
    expect(op.operationId).toBe('getCaptureMat');
    expect(op.security).toEqual([]);
    expect(Object.keys(op.responses['200'].content)).toEqual(['application/pdf']);
  });
});

describe('plinth capture-mat', () => {
  it('writes the same PDF to --out, and to stdout with --out -', async () => {
    const served = (await t.app.inject({ method: 'GET', url: '/capture-mat.pdf' })).rawPayload;
    const out = join(dir, 'mat.pdf');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await main(['capture-mat', '--out', out], {});
    } finally {
      stderr.mockRestore();
    }
    expect((await readFile(out)).equals(served)).toBe(true);
    const chunks: Buffer[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: Buffer, done?: (err?: Error) => void) => {
      chunks.push(Buffer.from(chunk));
      done?.();
      return true;
    }) as typeof process.stdout.write);
    try {
      await main(['capture-mat', '--out', '-'], {});
    } finally {
      stdout.mockRestore();
    }
    expect(Buffer.concat(chunks).equals(served)).toBe(true);
  });
});
