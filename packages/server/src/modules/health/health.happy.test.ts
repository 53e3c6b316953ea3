import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { toolCapability } from '../../platform/tools.js';
import { createTestApp, type TestApp } from '../../test/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('GET /v1/health capabilities', () => {
  it('reports ffmpeg, chromium and colmap found on PATH, each with its version', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('ok');
    expect(Object.keys(body.capabilities).sort()).toEqual(['chromium', 'colmap', 'ffmpeg']);
    expect(body.capabilities.ffmpeg).toEqual({ available: true, version: expect.stringMatching(/^\d+\.\d+/) });
    expect(body.capabilities.chromium).toEqual({ available: true, version: expect.stringMatching(/^\d+\.\d+/) });
    expect(body.capabilities.colmap).toEqual({ available: true, version: expect.stringMatching(/^\d+\.\d+/) });
  });

  it('finds a tool on PATH, or where its variable points, and reads its version', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'plinth-bin-'));
    try {
      const fake = join(bin, 'ffmpeg');
      writeFileSync(fake, '#!/bin/sh\necho "ffmpeg version 9.9-local Copyright"\n', { mode: 0o755 });
      const base = { PLINTH_DATA_DIR: join(bin, 'data'), PLINTH_SECRET: 'x'.repeat(32) };
      const onPath = loadConfig({ ...base, PATH: bin });
      expect(onPath.tools.ffmpeg).toBe(fake);
      expect(await toolCapability(onPath.tools, 'ffmpeg')).toEqual({ available: true, version: '9.9-local' });
      // Nothing else on this PATH: the bare name stays (and is looked up again when spawned).
      expect(onPath.tools.chromium).toBe('chromium');
      const explicit = loadConfig({ ...base, PATH: '', PLINTH_CHROMIUM_PATH: fake });
      expect(explicit.tools.chromium).toBe(fake);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
