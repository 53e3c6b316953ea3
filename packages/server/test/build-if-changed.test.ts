import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './cli-harness.js';

const SCRIPT = join(ROOT, 'scripts/build-if-changed.mjs');
const repo = mkdtempSync(join(tmpdir(), 'plinth-build-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

/** A two-package workspace whose builds count how often they ran. */
function workspace() {
  writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'w', private: true, workspaces: ['packages/a', 'packages/b'] }));
  for (const name of ['a', 'b']) {
    const dir = join(repo, 'packages', name);
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'index.ts'), 'export {};\n');
    const build = `node -e "const f=require('fs');f.mkdirSync('dist',{recursive:true});f.appendFileSync('dist/runs','x')"`;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', scripts: { build } }));
  }
}

const start = (...flags: string[]) =>
  execFileSync(process.execPath, [SCRIPT, ...flags, repo], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const runs = (name: string) => readFileSync(join(repo, 'packages', name, 'dist', 'runs'), 'utf8').length;

describe('npm start builds only what changed', () => {
  it('builds everything once, then nothing, then only the package whose source changed', () => {
    workspace();
    start();
    expect([runs('a'), runs('b')]).toEqual([1, 1]);
    start();
    expect([runs('a'), runs('b')]).toEqual([1, 1]);
    // A test file is not a build input; a source file is.
    const future = new Date(Date.now() + 5_000);
    writeFileSync(join(repo, 'packages/b/src/index.test.ts'), '');
    utimesSync(join(repo, 'packages/b/src/index.test.ts'), future, future);
    start();
    expect([runs('a'), runs('b')]).toEqual([1, 1]);
    utimesSync(join(repo, 'packages/b/src/index.ts'), future, future);
    start();
    expect([runs('a'), runs('b')]).toEqual([1, 2]);
  });

  it('a full build (npm run build, npm ci) leaves the marks a start checks, so the first start builds nothing', () => {
    rmSync(join(repo, 'packages'), { recursive: true, force: true });
    workspace();
    start('--all');
    expect([runs('a'), runs('b')]).toEqual([1, 1]);
    start();
    expect([runs('a'), runs('b')]).toEqual([1, 1]);
    // --all builds even what is current.
    start('--all');
    expect([runs('a'), runs('b')]).toEqual([2, 2]);
  });
});
