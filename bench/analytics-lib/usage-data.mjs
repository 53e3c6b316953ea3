// Writes what 10 million beacon events leave behind, straight into a Plinth SQLite database:
// product rows, and the hourly and daily rollups that GET /v1/usage reads. Drawing every event
// and counting it is fast (typed arrays); storing 10 M raw rows would only cost time and disk,
// since usage never reads them, so the raw table is left as it is.
import Database from 'better-sqlite3';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TYPES = ['view', 'ar_enter', 'ar_session_ended'];

/** Deterministic, so every run measures the same data. */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function cdf(weights) {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => (out[i] = sum += w));
  for (let i = 0; i < out.length; i++) out[i] /= sum;
  return out;
}

function draw(table, u) {
  let lo = 0;
  let hi = table.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (table[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * options: { file, orgId, events, products, unknownSubjects, unknownShare, internalShare, startMs, endMs }
 * Events fall in whole hours from startMs (a UTC day) up to the hour holding endMs.
 * Returns what was written, for the benchmark's report.
 */
export function generateUsage(o) {
  const rand = prng(7);
  const hours = Math.floor((o.endMs - o.startMs) / HOUR) + 1;
  const subjects = o.products + o.unknownSubjects;
  // Popularity follows a Zipf-like curve (a few bestsellers, a long tail); traffic follows the day.
  const productCdf = cdf(Array.from({ length: o.products }, (_, k) => 1 / (k + 1)));
  const hourCdf = cdf(Array.from({ length: hours }, (_, h) => 1 + 0.6 * Math.sin((2 * Math.PI * (((o.startMs / HOUR + h) % 24) - 9)) / 24)));
  const typeCdf = cdf([0.8, 0.14, 0.06]);
  const counts = new Uint32Array(subjects * hours * 3 * 2);
  const totals = { view: 0, ar_enter: 0, ar_session_ended: 0, internal: 0 };
  for (let n = 0; n < o.events; n++) {
    const s = rand() < o.unknownShare ? o.products + Math.floor(rand() * o.unknownSubjects) : draw(productCdf, rand());
    const h = draw(hourCdf, rand());
    const t = draw(typeCdf, rand());
    const internal = rand() < o.internalShare ? 1 : 0;
    counts[((s * hours + h) * 3 + t) * 2 + internal]++;
    if (internal) totals.internal++;
    else totals[TYPES[t]]++;
  }

  const db = new Database(o.file);
  db.pragma('busy_timeout = 10000');
  const now = new Date().toISOString();
  const subjectId = (s) => (s < o.products ? `prod_bench${String(s).padStart(6, '0')}` : `scan_bench${String(s - o.products).padStart(6, '0')}`);
  const insertProduct = db.prepare(
    `insert into products (id, org_id, title, status, model_status, source, created_at, updated_at)
     values (?, ?, ?, 'published', 'ready', '{"kind":"model_url","model_url":"https://models.example/m.glb"}', ?, ?)`,
  );
  // The layout Plinth writes: one row per (org, subject, bucket, internal) with a count per type,
  // and subject '' holding the organization's totals. Keys are unique here, so plain inserts do.
  const insert = (table) =>
    db.prepare(
      `insert into ${table} (org_id, subject_id, bucket_start, internal, view, ar_enter, ar_session_ended) values (?, ?, ?, ?, ?, ?, ?)`,
    );
  const hourly = insert('usage_hourly');
  const daily = insert('usage_daily');
  const rows = { hourly: 0, daily: 0 };
  const days = Math.ceil(hours / 24) + 1;
  const firstDay = Math.floor(o.startMs / DAY);
  const orgHourly = new Float64Array(hours * 2 * 3);
  const orgDaily = new Float64Array(days * 2 * 3);
  const write = (stmt, id, at, i, c) => {
    stmt.run(o.orgId, id, new Date(at).toISOString(), i, c[0], c[1], c[2]);
    return 1;
  };
  db.transaction(() => {
    for (let s = 0; s < o.products; s++) insertProduct.run(subjectId(s), o.orgId, `Bench product ${s}`, now, now);
    for (let s = 0; s < subjects; s++) {
      const id = subjectId(s);
      const perDay = new Float64Array(days * 2 * 3);
      for (let h = 0; h < hours; h++) {
        const at = o.startMs + h * HOUR;
        const d = Math.floor(at / DAY) - firstDay;
        for (let i = 0; i < 2; i++) {
          const c = [0, 1, 2].map((t) => counts[((s * hours + h) * 3 + t) * 2 + i]);
          if (!c[0] && !c[1] && !c[2]) continue;
          rows.hourly += write(hourly, id, at, i, c);
          for (let t = 0; t < 3; t++) {
            perDay[(d * 2 + i) * 3 + t] += c[t];
            orgHourly[(h * 2 + i) * 3 + t] += c[t];
            orgDaily[(d * 2 + i) * 3 + t] += c[t];
          }
        }
      }
      for (let d = 0; d < days; d++) {
        for (let i = 0; i < 2; i++) {
          const c = [0, 1, 2].map((t) => perDay[(d * 2 + i) * 3 + t]);
          if (c[0] || c[1] || c[2]) rows.daily += write(daily, id, (firstDay + d) * DAY, i, c);
        }
      }
    }
    for (let i = 0; i < 2; i++) {
      for (let h = 0; h < hours; h++) {
        const c = [0, 1, 2].map((t) => orgHourly[(h * 2 + i) * 3 + t]);
        if (c[0] || c[1] || c[2]) rows.hourly += write(hourly, '', o.startMs + h * HOUR, i, c);
      }
      for (let d = 0; d < days; d++) {
        const c = [0, 1, 2].map((t) => orgDaily[(d * 2 + i) * 3 + t]);
        if (c[0] || c[1] || c[2]) rows.daily += write(daily, '', (firstDay + d) * DAY, i, c);
      }
    }
  })();
  db.close();
  return { hours, subjects, rows, external: totals };
}
