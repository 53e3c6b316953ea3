import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_BACKEND } from '../src/test/env.js';

/**
 * A short run of bench/scale-out.mjs: two API and two worker processes on PostgreSQL, Redis and S3, a mixed load,
 * a worker and an API process killed and restarted. The bench itself checks every guarantee and exits non-zero
 * when one fails; the full three-minute run with a PostgreSQL restart is `npm run bench -- scale-out`.
 */
const postgresUrl = process.env.PLINTH_TEST_POSTGRES_URL;
const redisUrl = process.env.PLINTH_TEST_REDIS_URL;
const enabled = TEST_BACKEND === 'postgres' && !!postgresUrl && !!redisUrl;
if (TEST_BACKEND === 'postgres' && !enabled) console.log('[plinth] scale-out test skipped: needs PLINTH_TEST_POSTGRES_URL and PLINTH_TEST_REDIS_URL');

describe.skipIf(!enabled)('scale-out (short run of bench/scale-out.mjs)', () => {
  it('keeps every guarantee with two API and two worker processes while processes are killed', async () => {
    const script = fileURLToPath(new URL('../../../bench/scale-out.mjs', import.meta.url));
    const child = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        BENCH_SCALE_SECONDS: '40',
        // Five generations instead of fourteen: settling them after the load was most of the run's six minutes.
        BENCH_SCALE_GENERATE_EVERY_MS: '8000',
        BENCH_RESTART_POSTGRES: '0',
        PLINTH_BENCH_POSTGRES_URL: postgresUrl,
        PLINTH_BENCH_REDIS_URL: redisUrl,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    console.log(output.split('\n').filter((l) => /^(PASS|FAIL)|scale-out:/.test(l)).join('\n'));
    expect(code, output).toBe(0);
    expect(output).toContain('all checks passed');
  }, 900_000);
});
