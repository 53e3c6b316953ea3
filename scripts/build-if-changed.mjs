#!/usr/bin/env node
// `npm start` calls this: each workspace is built only when one of its inputs is newer than its last build,
// so a start after no change costs a directory walk instead of a full build. `npm run build` and `prepare`
// (which `npm ci` runs) call it with --all: every workspace is built and leaves the same mark, so the first
// start after a fresh clone builds nothing again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const all = args.includes('--all');
// The repository root; a test passes another one.
const root = args.find((arg) => !arg.startsWith('--')) ?? fileURLToPath(new URL('..', import.meta.url));
const STAMP = '.build-stamp';
/** What a build reads, besides src/: configs and entry files at the package root. */
const ROOT_INPUTS = /^(package\.json|tsconfig.*\.json|build\.mjs|vite\.config\.ts|index\.html)$/;
const SKIP = new Set(['node_modules', 'dist', 'test']);

function newestInput(dir, top = true) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!top || entry.name === 'src' || entry.name === 'scripts') newest = Math.max(newest, newestInput(path, false));
    } else if (!top || ROOT_INPUTS.test(entry.name)) {
      // Tests are not part of a build: changing one must not trigger it.
      if (!/\.test\.ts$|test-support/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
let built = 0;
for (const workspace of workspaces) {
  const dir = join(root, workspace);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!pkg.scripts?.build) continue;
  const stamp = join(dir, 'dist', STAMP);
  const last = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  if (!all && newestInput(dir) <= last) continue;
  if (!all) process.stderr.write(`building ${pkg.name} (changed since its last build)\n`);
  // Stamped with the time the build started: a file saved during the build makes the next start build again.
  const started = new Date();
  execFileSync('npm', ['run', 'build', '--silent', '-w', workspace], { cwd: root, stdio: 'inherit' });
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(stamp, started.toISOString() + '\n');
  utimesSync(stamp, started, started);
  built++;
}
if (!built) process.stderr.write('build is current\n');
