import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of docs/architecture.md, checked over the sources on every run: each test lists
 * the lines that break its rule, so a failure says where to look.
 */
const SERVER = dirname(fileURLToPath(import.meta.url));
const SERVER_PACKAGE = resolve(SERVER, '..');
const MEDIA = resolve(SERVER, '../../media/src');

interface Source {
  /** relative to its package's src/, with forward slashes */
  path: string;
  abs: string;
  lines: string[];
}

function sources(root: string): Source[] {
  const out: Source[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        out.push({ path: relative(root, abs).split(sep).join('/'), abs, lines: readFileSync(abs, 'utf8').split('\n') });
      }
    }
  };
  walk(root);
  return out;
}

/** Tests and their helpers may reach across layers to set a scene; the rules are about what ships. */
const isTestCode = (path: string) => /\.test\.ts$|\.test-support\.ts$|(^|\/)test\/|(^|\/)test-[\w-]+\.m?[jt]s$/.test(path);

const server = sources(SERVER);
const media = sources(MEDIA);
const shipped = server.filter((f) => !isTestCode(f.path));

/** `file:line: text` for every line of `files` that matches `pattern`. */
function hits(files: Source[], pattern: RegExp): string[] {
  return files.flatMap((f) => f.lines.flatMap((line, i) => (pattern.test(line) ? [`${f.path}:${i + 1}: ${line.trim()}`] : [])));
}

/** The module specifiers a file imports or re-exports (static and dynamic). */
function specifiers(f: Source): { spec: string; line: number }[] {
  const out: { spec: string; line: number }[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;
  f.lines.forEach((text, i) => {
    for (const m of text.matchAll(pattern)) out.push({ spec: m[1]!, line: i + 1 });
  });
  return out;
}

/**
 * The server file a relative specifier names, as a path relative to src/ (`./x.js` is `x.ts`, a folder is its
 * `index.ts`), or null for a package or a file outside the sources given.
 */
function target(from: string, spec: string, known: Set<string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, `${base}/index.ts`]) {
    if (known.has(candidate)) return candidate;
  }
  return null;
}

/** Every import between the files given: `from` imports `to` on `line`. */
function importEdges(files: Source[]): { from: string; to: string; line: number }[] {
  const known = new Set(files.map((f) => f.path));
  return files.flatMap((f) =>
    specifiers(f).flatMap(({ spec, line }) => {
      const to = target(f.path, spec, known);
      return to ? [{ from: f.path, to, line }] : [];
    }),
  );
}

/** `modules/<area>/…` → the area; anything else → null. */
const moduleOf = (path: string) => /^modules\/([^/]+)\//.exec(path)?.[1] ?? null;

/** The app's composition: the files that wire each module's routes, lanes, jobs, tables and migrations in one line each. */
const COMPOSITION = new Set(['app.ts', 'lanes.ts', 'worker.ts', 'migrations.ts', 'db.ts', 'modules/tables.ts']);
/** What the composition may take from a module besides its front door: the pieces it wires. */
const WIRED = /\.(routes|jobs|tables|migration)\.ts$|-lane\.ts$/;

/**
 * Imports of another module's inner file. A module's `index.ts` is its front door: what other modules (and
 * `http/`, `core/`, the CLI) may use. The composition files wire a module's routes, jobs, tables, migrations
 * and lanes directly.
 */
function innerImports(files: Source[]): string[] {
  return importEdges(files)
    .filter(({ from, to }) => {
      const owner = moduleOf(to);
      if (!owner || moduleOf(from) === owner || to === `modules/${owner}/index.ts`) return false;
      return !(COMPOSITION.has(from) && WIRED.test(to));
    })
    .map(({ from, to, line }) => `${from}:${line}: ${to}`);
}

/**
 * Repositories used outside their module: another module's work goes through the owner's service. A front door
 * that re-exports its repository would open it again, so an index may not name one either.
 */
function foreignRepositoryImports(files: Source[]): string[] {
  return importEdges(files)
    .filter(({ from, to }) => /\.repo\.ts$/.test(to) && (moduleOf(from) !== moduleOf(to) || from.endsWith('/index.ts')))
    .map(({ from, to, line }) => `${from}:${line}: ${to}`);
}

/** The circles among the files given (each a strongly connected set of two or more, or a file importing itself). */
function importCircles(files: Source[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f.path, []]));
  for (const { from, to } of importEdges(files)) next.get(from)!.push(to);
  // Tarjan's algorithm, with an explicit stack so a deep chain of imports cannot overflow the call stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  for (const root of next.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; i: number }[] = [{ node: root, i: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work.at(-1)!;
      const edges = next.get(top.node)!;
      if (top.i < edges.length) {
        const to = edges[top.i++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length) low.set(work.at(-1)!.node, Math.min(low.get(work.at(-1)!.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== top.node);
      if (members.length > 1 || edges.includes(top.node)) circles.push(members.sort());
    }
  }
  return circles;
}

/** Sources written in the test, to show that each rule fails on the violation it is there to catch. */
function fixture(files: Record<string, string>): Source[] {
  return Object.entries(files).map(([path, text]) => ({ path, abs: path, lines: text.split('\n') }));
}

describe('layers', () => {
  it('finds the sources it checks', () => {
    expect(shipped.some((f) => f.path === 'config.ts')).toBe(true);
    expect(shipped.some((f) => f.path.startsWith('platform/db/'))).toBe(true);
    expect(media.some((f) => f.path === 'index.ts')).toBe(true);
  });

  it('the media engine imports nothing from the server', () => {
    const bad = media.flatMap((f) =>
      specifiers(f)
        .filter(({ spec }) => {
          if (/^@plinth\/server(\/|$)/.test(spec)) return true;
          return spec.startsWith('.') && resolve(dirname(f.abs), spec).startsWith(SERVER_PACKAGE + sep);
        })
        .map(({ spec, line }) => `${f.path}:${line}: ${spec}`),
    );
    expect(bad).toEqual([]);
  });

  it('nothing under platform/ imports a module', () => {
    const bad = server
      .filter((f) => f.path.startsWith('platform/'))
      .flatMap((f) =>
        specifiers(f)
          .filter(({ spec }) => spec.startsWith('.') && resolve(dirname(f.abs), spec).startsWith(join(SERVER, 'modules') + sep))
          .map(({ spec, line }) => `${f.path}:${line}: ${spec}`),
      );
    expect(bad).toEqual([]);
  });

  it('only config.ts reads the environment', () => {
    expect(hits(shipped.filter((f) => f.path !== 'config.ts'), /process\.env\b/)).toEqual([]);
  });

  it('only platform/db knows which database it is on', () => {
    const outside = shipped.filter((f) => !f.path.startsWith('platform/db/'));
    expect(hits(outside, /\bdatabase\.kind\b|\bdatabaseKind\b/)).toEqual([]);
    // Not a service, repo or job, nor a migration: each asks platform/db for a capability instead.
    const modules = outside.filter((f) => f.path.startsWith('modules/'));
    expect(hits(modules, /['"](sqlite|postgres)['"]|\bPostgresAdapter\b|\bSqliteAdapter\b/)).toEqual([]);
  });

  it('only modules/products writes a products row', () => {
    const outside = shipped.filter((f) => !f.path.startsWith('modules/products/'));
    const write = /\b(updateTable|insertInto|deleteFrom|replaceInto|mergeInto)\(\s*['"]products['"]|\b(update|insert\s+into|delete\s+from)\s+"?products"?\b/i;
    expect(hits(outside, write)).toEqual([]);
  });

  it('each table is declared by the one area whose migration creates it', () => {
    // Table row types: platform/db/schema.ts for the platform's own, <area>.tables.ts for a module's.
    const declared = new Map<string, string>();
    for (const f of server.filter((s) => s.path === 'platform/db/schema.ts' || s.path.endsWith('.tables.ts'))) {
      const text = f.lines.join('\n');
      const composite = /export interface (\w+Tables)\s*\{([^}]*)\}/.exec(text);
      expect(composite, `${f.path} exports one interface of its tables`).not.toBeNull();
      for (const m of composite![2]!.matchAll(/^\s*(\w+):/gm)) declared.set(m[1]!, f.path);
    }
    const created = new Map<string, string>();
    for (const f of server.filter((s) => s.path === 'platform/db/migrations.ts' || s.path.endsWith('.migration.ts'))) {
      const text = f.lines.join('\n');
      for (const m of text.matchAll(/createTable\(\s*['"](\w+)['"]/g)) created.set(m[1]!, f.path);
      // A table built under a temporary name and renamed into place (a rebuild) is the renamed one.
      for (const m of text.matchAll(/alterTable\(\s*['"](\w+)['"]\s*\)\s*\.renameTo\(\s*['"](\w+)['"]/g)) {
        created.delete(m[1]!);
        created.set(m[2]!, f.path);
      }
      // A table created from a variable (a loop over names): any declared table named in the file.
      if (/createTable\(\s*[A-Za-z_]/.test(text)) {
        for (const m of text.matchAll(/['"](\w+)['"]/g)) if (declared.has(m[1]!)) created.set(m[1]!, f.path);
      }
    }
    const area = (path: string) => (path.startsWith('platform/') ? 'platform' : path.split('/')[1]!);
    const mismatched = [...new Set([...declared.keys(), ...created.keys()])]
      .filter((table) => !declared.has(table) || !created.has(table) || area(declared.get(table)!) !== area(created.get(table)!))
      .map((table) => `${table}: declared in ${declared.get(table) ?? 'nowhere'}, created in ${created.get(table) ?? 'nowhere'}`);
    expect(mismatched).toEqual([]);
  });

  it('no circle among the server files', () => {
    expect(importCircles(shipped).map((c) => c.join(' → '))).toEqual([]);
  });

  it('no module imports another module\'s inner file: only its index.ts', () => {
    expect(innerImports(shipped)).toEqual([]);
  });

  it('no repository is imported outside its module, nor re-exported by its front door', () => {
    expect(foreignRepositoryImports(shipped)).toEqual([]);
  });

  describe('each boundary rule fails on a planted violation', () => {
    it('a circle of three files, and a file importing itself', () => {
      const files = fixture({
        'modules/a/a.service.ts': "import { b } from './b.jobs.js';",
        'modules/a/b.jobs.ts': "import type { C } from '../c/index.js';",
        'modules/c/index.ts': "export { a } from '../a/a.service.js';\nexport type C = 1;",
        'modules/d/d.ts': "import { d } from './d.js';",
        'modules/e/e.ts': "import { a } from '../a/a.service.js';",
      });
      expect(importCircles(files)).toEqual([['modules/a/a.service.ts', 'modules/a/b.jobs.ts', 'modules/c/index.ts'], ['modules/d/d.ts']]);
      expect(importCircles(fixture({ 'x.ts': "import './y.js';", 'y.ts': '' }))).toEqual([]);
    });

    it('an import of another module\'s inner file, from a module or from http/', () => {
      const files = fixture({
        'modules/a/index.ts': "export { run } from './a.service.js';",
        'modules/a/a.service.ts': 'export const run = 1;',
        'modules/a/a.routes.ts': "import { run } from './a.service.js';",
        'modules/b/b.service.ts': "import { run } from '../a/index.js';\nimport { run as again } from '../a/a.service.js';",
        'http/x.ts': "import { run } from '../modules/a/a.service.js';",
        'app.ts': "import { aRoutes } from './modules/a/a.routes.js';\nimport { run } from './modules/a/a.service.js';",
      });
      expect(innerImports(files)).toEqual([
        'modules/b/b.service.ts:2: modules/a/a.service.ts',
        'http/x.ts:1: modules/a/a.service.ts',
        'app.ts:2: modules/a/a.service.ts',
      ]);
    });

    it('a repository imported by another module or the CLI, or re-exported by its front door', () => {
      const files = fixture({
        'modules/a/a.repo.ts': 'export const row = 1;',
        'modules/a/a.service.ts': "import { row } from './a.repo.js';",
        'modules/a/index.ts': "export { row } from './a.repo.js';",
        'modules/b/b.service.ts': "import { row } from '../a/a.repo.js';",
        'cli.ts': "import { row } from './modules/a/a.repo.js';",
      });
      expect(foreignRepositoryImports(files)).toEqual([
        'modules/a/index.ts:1: modules/a/a.repo.ts',
        'modules/b/b.service.ts:1: modules/a/a.repo.ts',
        'cli.ts:1: modules/a/a.repo.ts',
      ]);
    });
  });
});
