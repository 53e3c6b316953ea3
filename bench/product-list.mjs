// GET /v1/products filtered by tags over a 100k-product catalogue in one organization, on SQLite:
// the latency one caller sees (requests one after the other on one keep-alive connection).
// Goal: p50 <= 20 ms for every filter.
//
//   npm run build && node bench/product-list.mjs [--products=100000] [--count=300] [--explain]
//
// The catalogue is written straight into the database of a migrated, bootstrapped data dir (50 tags
// with Zipf-like popularity, 1-4 tags and 1-3 images per product, 70 % published), then
// `plinth serve` starts on that data dir. --explain also prints, for each filter, the SQL Plinth
// sends, SQLite's plan and the time of each statement alone (no HTTP), to tell the query from the rest.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, runCli, startPlinth } from './lib/plinth.mjs';
import { printEnvironment, recordResult } from './lib/report.mjs';
import { tempDir } from './lib/processes.mjs';
import { generateCatalog } from './products-lib/catalog-data.mjs';
import { explainList, printExplained } from './products-lib/explain.mjs';
import { sequentialLatency } from './products-lib/sequential.mjs';

const GOAL_MS = 20;
const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const productCount = Number(args.products ?? 100_000);
const count = Number(args.count ?? 300);
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

ensureBuilt();
const dir = tempDir('plinth-bench-list-');
// The CLI reads everything from the environment; a caller's DATABASE_URL would point it elsewhere.
const cliEnv = { ...process.env, PLINTH_DATA_DIR: dir.path, LOG_LEVEL: 'warn' };
for (const key of Object.keys(cliEnv)) {
  if (key.startsWith('PLINTH_') && key !== 'PLINTH_DATA_DIR') delete cliEnv[key];
}
delete cliEnv.DATABASE_URL;
runCli(['migrate'], cliEnv);
const keys = JSON.parse(runCli(['bootstrap', '--org', 'Catalogue', '--email', 'list-bench@plinth.local', '--json'], cliEnv));
const file = join(dir.path, 'plinth.db');
const catalog = generateCatalog({ file, orgId: keys.org_id, products: productCount });
console.log(
  `generated ${catalog.products.toLocaleString('en-US')} products, ${catalog.tags.toLocaleString('en-US')} tag rows, ` +
    `${catalog.images.toLocaleString('en-US')} images in ${catalog.ms} ms`,
);

// A popular tag, a middling one and a rare one, by how many products carry them.
const [top, second] = catalog.byPopularity;
const middle = catalog.byPopularity[Math.floor(catalog.byPopularity.length / 2)];
const rare = catalog.byPopularity[catalog.byPopularity.length - 1];
const share = (t) => `${((100 * catalog.tagCounts.get(t)) / productCount).toFixed(1)} %`;
console.log(`tags: ${top} on ${share(top)}, ${second} on ${share(second)}, ${middle} on ${share(middle)}, ${rare} on ${share(rare)} of products`);

const cases = [
  { label: 'no filter', query: '', filter: {} },
  { label: `tag=${top} (popular)`, query: `tag=${top}`, filter: { tags: [top] } },
  { label: `tag=${middle} (middling)`, query: `tag=${middle}`, filter: { tags: [middle] } },
  { label: `tag=${rare} (rare)`, query: `tag=${rare}`, filter: { tags: [rare] } },
  { label: `tag=${top}&tag=${second} (all)`, query: `tag=${top}&tag=${second}`, filter: { tags: [top, second], tagMatch: 'all' } },
  { label: `tag=${top}&tag=${second}&tag_match=any`, query: `tag=${top}&tag=${second}&tag_match=any`, filter: { tags: [top, second], tagMatch: 'any' } },
  { label: `tag=${middle}&tag=${rare}&tag_match=any`, query: `tag=${middle}&tag=${rare}&tag_match=any`, filter: { tags: [middle, rare], tagMatch: 'any' } },
];

const plinth = await startPlinth({ env: { PLINTH_DATA_DIR: dir.path } });
try {
  printEnvironment();
  console.log(`sequential: ${count} measured requests per filter after 30 unmeasured, one keep-alive connection`);
  console.log(`load average before: ${load()}`);
  const headers = { authorization: `Bearer ${keys.secret_key}` };
  const rows = [];
  for (const c of cases) {
    const url = `${plinth.url}/v1/products${c.query ? `?${c.query}` : ''}`;
    const r = await sequentialLatency(url, { headers, count });
    rows.push({ ...c, ...r, total: r.body.total, returned: r.body.data.length });
  }
  console.log(`load average after: ${load()}\n`);

  const width = Math.max(...rows.map((r) => r.label.length));
  const fmt = (n) => n.toFixed(2).padStart(8);
  console.log(`${'GET /v1/products?…'.padEnd(width)}  ${'total'.padStart(7)}  ${'p50 ms'.padStart(8)}  ${'p90 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}  goal`);
  for (const r of rows) {
    console.log(
      `${r.label.padEnd(width)}  ${String(r.total).padStart(7)}  ${fmt(r.p50)}  ${fmt(r.p90)}  ${fmt(r.p99)}  ` +
        `${r.p50 <= GOAL_MS ? 'met' : 'NOT met'}`,
    );
  }
  const missed = rows.filter((r) => r.p50 > GOAL_MS);
  console.log(missed.length ? `\np50 goal (<= ${GOAL_MS} ms) NOT met for ${missed.length} of ${rows.length} filters` : `\np50 goal (<= ${GOAL_MS} ms) met for every filter`);
  recordResult('product-list', {
    products: productCount,
    loadavg: loadavg(),
    results: rows.map(({ label, query, total, p50, p90, p99, mean }) => ({ label, query, total, p50, p90, p99, mean })),
  });

  if (args.explain) {
    const explained = await explainList(
      file,
      cases.filter((c) => c.filter.tags).map((c) => ({ label: c.label, filter: { orgIds: [keys.org_id], ...c.filter } })),
    );
    printExplained(explained);
  }
} finally {
  await plinth.stop();
  dir.remove();
}
