import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../../test/app.js';
import { startFixtureServer, waitFor, type FixtureServer } from '../../test/fixture-server.js';
import { quoteAndCommit, TEST_ALLOW } from '../../test/products.js';
import { registerJobHandlers } from '../../worker.js';
import { clearToolCache } from '../../platform/tools.js';

/** Tools pointed at paths that do not exist: what a server without them installed sees. */
const MISSING = { PLINTH_FFMPEG_PATH: '/nonexistent/ffmpeg', PLINTH_CHROMIUM_PATH: '/nonexistent/chromium', PLINTH_COLMAP_PATH: '/nonexistent/colmap' };

let t: TestApp;
let web: FixtureServer;
let work: string;

beforeAll(async () => {
  clearToolCache();
  work = mkdtempSync(join(tmpdir(), 'plinth-tools-'));
  const video = join(work, 'clip.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10:duration=2', '-pix_fmt', 'yuv420p', '-y', video]);
  web = await startFixtureServer();
  web.set('/clip.mp4', readFileSync(video), 'video/mp4');
  t = await createTestApp({ ...TEST_ALLOW, ...MISSING });
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
});

afterAll(async () => {
  await t?.close();
  await web?.close();
  rmSync(work, { recursive: true, force: true });
  clearToolCache();
});

describe('missing system tools', () => {
  it('health names each missing tool and degrades, without a 503', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('degraded');
    expect(body.checks.database.status).toBe('ok');
    for (const tool of ['ffmpeg', 'chromium', 'colmap']) expect(body.capabilities[tool]).toEqual({ available: false, version: null });
    expect(res.body).not.toContain('/nonexistent');
  });

  it('a video product fails with tool_missing naming ffmpeg and its variable, not internal_error', async () => {
    const created = await quoteAndCommit(t, t.org.secret_key, { video_url: web.url('/clip.mp4'), generate_model: false });
    const p = await waitFor(async () => {
      const r = await t.app.inject({ method: 'GET', url: `/v1/products/${created.id}`, headers: bearer(t.org.secret_key) });
      const x = r.json();
      return x.images_status !== 'ingesting' ? x : undefined;
    }, 60_000, 'video ingestion');
    expect(p.images_status).toBe('failed');
    expect(p.error.code).toBe('tool_missing');
    expect(p.error.message).toContain('ffmpeg');
    expect(p.error.message).toContain('PLINTH_FFMPEG_PATH');
  });
});
