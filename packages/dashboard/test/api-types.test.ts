import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The dashboard reads the API through the SDK's types, generated from the served OpenAPI document, and
 * restates none of them: so a change in the API fails the dashboard's typecheck here instead of leaving a
 * hand-written copy quietly wrong. The SDK's code never reaches the bundle (type imports only).
 */
const DASHBOARD = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(DASHBOARD, 'src');
const TYPES = join(SRC, 'api', 'types.ts');
const SDK_TYPES = fileURLToPath(new URL('../../sdk/dist/index.d.ts', import.meta.url));

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));

/** Each import or re-export statement of a file, whole (they span lines). */
const statements = (text: string) => text.match(/^(?:import|export)\b[^;]*?\bfrom\s+'[^']+';/gms) ?? [];

/** The API's shapes, as a hand-written copy would spell them: an interface, or a type alias with an object literal. */
const HAND_WRITTEN = /^\s*(?:export\s+)?(?:interface\s+\w+|type\s+\w+(?:<[^=]*>)?\s*=[^;]*\{)/m;

// Both database projects would run it alike; once is enough.
describe.skipIf(process.env.PLINTH_TEST_DB === 'postgres')('the dashboard’s API types', () => {
  it('come from @plinth/sdk through src/api/types.ts alone, as types only', () => {
    const importers: string[] = [];
    for (const file of sources(SRC)) {
      for (const s of statements(readFileSync(file, 'utf8')).filter((x) => /from\s+'@plinth\/sdk[^']*'/.test(x))) {
        importers.push(relative(SRC, file));
        expect(s, `${relative(SRC, file)}: ${s}`).toMatch(/^(?:import|export)\s+type\b/);
      }
    }
    expect([...new Set(importers)]).toEqual([join('api', 'types.ts')]);
  });

  it('are never written out by hand in src/api/types.ts: every one is the SDK’s or picked out of it', () => {
    const text = readFileSync(TYPES, 'utf8');
    const foreign = statements(text).filter((s) => !/from\s+'@plinth\/sdk'/.test(s));
    expect(foreign).toEqual([]);
    // Comments and string literals aside: an operation's path has braces of its own.
    const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').replace(/'[^'\n]*'/g, "''");
    expect(code).not.toMatch(HAND_WRITTEN);
  });

  it('the rule above catches a hand-written shape', () => {
    expect('export interface Product {\n  id: string;\n}').toMatch(HAND_WRITTEN);
    expect('export type Counts = { view: number };').toMatch(HAND_WRITTEN);
    expect("export type Me = Answer<'GET /dashboard/api/me'>;").not.toMatch(HAND_WRITTEN);
    expect("export type Hotspot = NonNullable<ViewerSettings['hotspots']>[number];").not.toMatch(HAND_WRITTEN);
  });

  it('typecheck against the SDK as built, so an API change the dashboard relies on fails here', { timeout: 180_000 }, async () => {
    expect(existsSync(SDK_TYPES), 'build the SDK first (npm run build)').toBe(true);
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const run = promisify(execFile)(process.execPath, [tsc, '-p', join(DASHBOARD, 'tsconfig.json'), '--noEmit', '--pretty', 'false']);
    await expect(run.then(() => '', (e: { stdout?: string }) => e.stdout ?? String(e))).resolves.toBe('');
  });
});
