// What SQLite does for a list request: the exact SQL Plinth sends (captured from the compiled
// repository module through Kysely's query log, not rewritten by hand), its EXPLAIN QUERY PLAN and
// its own execution time, without HTTP around it. Splits a slow list into "the query" and "the rest".
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib/plinth.mjs';

const REPO = join(ROOT, 'packages/server/dist/modules/products/products.repo.js');

/** The statements listProductRows runs for `filter`, as { sql, parameters }. */
async function capture(file, filter, page) {
  if (!existsSync(REPO)) throw new Error(`${REPO} is missing: run \`npm run build\``);
  const { listProductRows } = await import(pathToFileURL(REPO).href);
  const raw = new Database(file, { readonly: true });
  const queries = [];
  const db = new Kysely({ dialect: new SqliteDialect({ database: raw }), log: (e) => e.level === 'query' && queries.push(e.query) });
  try {
    await listProductRows(db, filter, page);
  } finally {
    await db.destroy();
  }
  return queries.map((q) => ({ sql: q.sql, parameters: q.parameters }));
}

function timeStatement(raw, sql, parameters, runs) {
  const stmt = raw.prepare(sql);
  stmt.all(parameters);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    stmt.all(parameters);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

/**
 * For each case ({ label, filter }): the captured statements with their plan and median time.
 * `extraSql` ({ label, sql, parameters }[]) are timed and explained alongside, e.g. a proposed rewrite.
 */
export async function explainList(file, cases, { page = { limit: 20, offset: 0 }, runs = 30 } = {}) {
  const out = [];
  for (const c of cases) {
    const statements = c.sql ? [{ sql: c.sql, parameters: c.parameters }] : await capture(file, c.filter, page);
    const raw = new Database(file, { readonly: true });
    try {
      for (const s of statements) {
        const plan = indented(raw.prepare(`explain query plan ${s.sql}`).all(s.parameters));
        out.push({ label: c.label, sql: s.sql, parameters: s.parameters, plan, ms: timeStatement(raw, s.sql, s.parameters, runs) });
      }
    } finally {
      raw.close();
    }
  }
  return out;
}

// EXPLAIN QUERY PLAN rows carry id/parent; indenting by depth makes nested subqueries readable.
function indented(rows) {
  const depthOf = new Map([[0, -1]]);
  return rows.map((r) => {
    const d = (depthOf.get(r.parent) ?? -1) + 1;
    depthOf.set(r.id, d);
    return `${'  '.repeat(d)}${r.detail}`;
  });
}

export function printExplained(rows) {
  for (const r of rows) {
    console.log(`\n[${r.label}] ${r.ms.toFixed(2)} ms median in SQLite`);
    console.log(`  ${r.sql}`);
    console.log(`  params ${JSON.stringify(r.parameters)}`);
    for (const line of r.plan) console.log(`    ${line}`);
  }
}
