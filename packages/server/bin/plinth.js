#!/usr/bin/env node
// The compiled CLI; `npm ci` builds it (root "prepare" script), `npm start` rebuilds when needed.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/server.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('plinth: not built yet; run `npm run build` in the repository root.\n');
  process.exit(1);
}
await import(entry.href);
