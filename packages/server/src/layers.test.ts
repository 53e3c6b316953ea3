import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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
});
