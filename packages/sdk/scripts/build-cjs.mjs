#!/usr/bin/env node
// The CommonJS build, next to tsc's ESM one: `require('@plinth/sdk')` from older Node code and tools.
// One bundled file (the SDK has no runtime dependencies), with the ESM declarations copied as .d.cts.
import { build } from 'esbuild';
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: here,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'neutral',
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
});
copyFileSync(`${here}/dist/index.d.ts`, `${here}/dist/index.d.cts`);
