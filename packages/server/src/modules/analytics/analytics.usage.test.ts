import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, sessionCookie, type TestApp } from '../../test/app.js';
import { seedProduct } from '../../test/products.js';
import { BEACON_TYPES } from './analytics.types.js';

/**
 * Counting must be exact: a generated stream of beacons (external and internal, products of the
 * organization, unknown subjects, another organization's product, times that get clamped) is sent
 * through the API, and every usage answer is compared with a reference computed here from the
 * stream alone.
 */
const NOW = Date.parse('2031-03-14T10:30:00.000Z');
/** The server's clock: moved back for the older parts of the stream, then left at NOW. */
let clock = NOW;
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const TYPES = BEACON_TYPES;
type Type = (typeof TYPES)[number];

interface Sent {
  org: string;
  subject: string;
  type: Type;
  internal: boolean;
  /** when the event counts, by the documented rule (not by asking the server) */
  at: number;
}

function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

let t: TestApp;
let A: { org: string; sk: string; pk: string };
let B: { org: string; sk: string };
let C: { org: string; sk: string };
let cookie: string;
const titles = new Map<string, { org: string; title: string }>();
const sent: Sent[] = [];

beforeAll(async () => {
  t = await createTestApp({}, { clock: { now: () => new Date(clock) } });
  const email = `usage-${Date.now()}@example.test`;
  const a = await t.bootstrap({ email });
  const b = await t.bootstrap();
  const c = await t.bootstrap({ email });
  A = { org: a.org_id, sk: a.secret_key, pk: a.publishable_key };
  B = { org: b.org_id, sk: b.secret_key };
  C = { org: c.org_id, sk: c.secret_key };
  cookie = await sessionCookie(t.app, email, 'correct horse battery');

  const productsA: string[] = [];
  for (let i = 0; i < 24; i++) {
    const title = `Chair ${String(i).padStart(2, '0')}`;
    const id = await seedProduct(t, A.org, { title });
    productsA.push(id);
    titles.set(id, { org: A.org, title });
  }
  const productB = await seedProduct(t, B.org, { title: 'B lamp' });
  titles.set(productB, { org: B.org, title: 'B lamp' });
  const productC = await seedProduct(t, C.org, { title: 'C sofa' });
  titles.set(productC, { org: C.org, title: 'C sofa' });

  const rand = prng(20310314);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  // Skewed popularity, so the ranking (and its 20-row cut) means something; ties still happen.
  const subjectA = () => (rand() < 0.1 ? pick(['scan_1', 'scan_2', 'scan_3', productB]) : productsA[Math.floor(rand() ** 2 * productsA.length)]);
  const type = (): Type => (rand() < 0.5 ? 'view' : rand() < 0.4 ? 'ar_enter' : pick(TYPES));
  const occurred = (received: number) => {
    if (rand() < 0.1) return { wire: undefined, at: received };
    let offset = Math.round(-27 * HOUR + rand() * (27 * HOUR + 15 * MIN));
    // Well clear of the two edges, where a millisecond decides: that is the service's unit test.
    if (Math.abs(offset + DAY) < 1000 || Math.abs(offset - 5 * MIN) < 1000) offset += 5000;
    const clamped = offset < -DAY || offset > 5 * MIN;
    return { wire: new Date(received + offset).toISOString(), at: clamped ? received : received + offset };
  };

  type Sender = { headers: Record<string, string>; org: string; internal: boolean; orgIdInBody?: string; subject: () => string };
  const senders: Sender[] = [
    { headers: { ...bearer(A.pk), origin: 'https://shop.example' }, org: A.org, internal: false, subject: subjectA },
    { headers: { ...bearer(A.pk), origin: 'https://shop.example' }, org: A.org, internal: false, subject: subjectA },
    { headers: bearer(A.sk), org: A.org, internal: true, subject: subjectA },
    { headers: { cookie }, org: A.org, internal: true, orgIdInBody: A.org, subject: subjectA },
    { headers: bearer(B.sk), org: B.org, internal: true, subject: () => pick([productB, productsA[0], 'scan_1']) },
    { headers: bearer(C.sk), org: C.org, internal: true, subject: () => pick([productC, 'scan_9']) },
  ];

  // Three receive times, so the stream spans about three days: hour reports then read whole days
  // from the daily rollup and the hours at either end from the hourly one.
  const phases = [NOW - 2 * DAY - 5 * HOUR, NOW - DAY + 3 * HOUR, NOW];
  const requests: Array<{ received: number; send: () => Promise<void> }> = [];
  for (let r = 0; r < 72; r++) {
    const received = phases[Math.floor(r / 24)];
    const s = pick(senders);
    const n = 1 + Math.floor(rand() * 60);
    const events: Array<Record<string, string>> = [];
    for (let i = 0; i < n; i++) {
      const when = occurred(received);
      const e = { type: type(), product_id: s.subject() };
      const wire = e.type === 'conversion' ? { ...e, name: 'purchase' } : e;
      events.push(when.wire ? { ...wire, occurred_at: when.wire } : wire);
      sent.push({ org: s.org, subject: e.product_id, type: e.type, internal: s.internal, at: when.at });
    }
    requests.push({ received, send: async () => {
      const res = await t.app.inject({ method: 'POST', url: '/v1/beacon', headers: s.headers, payload: { events, ...(s.orgIdInBody && { org_id: s.orgIdInBody }) } });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().accepted).toBe(n);
    } });
  }
  // Several at once, so group commit puts different callers in one transaction.
  for (let i = 0; i < requests.length; i += 8) {
    const group = requests.slice(i, i + 8);
    clock = group[0].received;
    await Promise.all(group.map((r) => r.send()));
  }
  clock = NOW;
  expect(sent.length).toBeGreaterThan(1000);
}, 60_000);
afterAll(async () => t?.close());

interface Ask {
  orgs: string[];
  start: number;
  end: number;
  unit: number;
  internal: boolean;
  types?: Type[];
  subject?: string;
  byProduct?: boolean;
}

/** What the API must answer, computed from the stream alone. */
function reference(q: Ask) {
  const start = Math.floor(q.start / q.unit) * q.unit;
  const end = Math.ceil(q.end / q.unit) * q.unit;
  const zero = () => Object.fromEntries(TYPES.map((t) => [t, 0])) as Record<Type, number>;
  const buckets: Array<{ start: string } & ReturnType<typeof zero>> = [];
  for (let b = start; b < end; b += q.unit) buckets.push({ start: new Date(b).toISOString(), ...zero() });
  const totals = zero();
  const per = new Map<string, ReturnType<typeof zero>>();
  for (const e of sent) {
    if (!q.orgs.includes(e.org) || (e.internal && !q.internal)) continue;
    if (q.types && !q.types.includes(e.type)) continue;
    if (q.subject && e.subject !== q.subject) continue;
    if (e.at < start || e.at >= end) continue;
    buckets[Math.floor((e.at - start) / q.unit)][e.type]++;
    totals[e.type]++;
    // Only a product row of the organization the event was counted in makes a by_product row.
    if (titles.get(e.subject)?.org === e.org) {
      const c = per.get(e.subject) ?? zero();
      c[e.type]++;
      per.set(e.subject, c);
    }
  }
  const byProduct = [...per]
    .map(([id, c]) => ({ product_id: id, title: titles.get(id)!.title, ...c }))
    .sort((a, b) => b.view - a.view || b.ar_enter - a.ar_enter || (a.product_id < b.product_id ? -1 : 1))
    .slice(0, 20);
  return {
    object: 'usage',
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    granularity: q.unit === HOUR ? 'hour' : 'day',
    buckets,
    totals,
    ...(q.byProduct && { by_product: byProduct }),
  };
}

async function usage(qs: string, headers: Record<string, string> = bearer(A.sk)) {
  const res = await t.app.inject({ method: 'GET', url: `/v1/usage?${qs}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());

describe('GET /v1/usage counts exactly what was sent', () => {
  for (const internal of [false, true]) {
    const flag = internal ? '&include_internal=true' : '';
    describe(internal ? 'with include_internal=true' : 'external traffic only (default)', () => {
      it('default window: the last 30 whole days, day buckets, with by_product', async () => {
        const body = await usage(`group_by=product${flag}`);
        const end = Math.ceil(NOW / DAY) * DAY;
        expect(body).toEqual(reference({ orgs: [A.org], start: end - 30 * DAY, end, unit: DAY, internal, byProduct: true }));
        expect(body.buckets).toHaveLength(30);
        expect(body.by_product).toHaveLength(20);
      });

      it('hour buckets over the whole stream', async () => {
        const start = NOW - 80 * HOUR;
        const body = await usage(`granularity=hour&start=${at(start)}&end=${at(NOW)}&group_by=product${flag}`);
        expect(body).toEqual(reference({ orgs: [A.org], start, end: NOW, unit: HOUR, internal, byProduct: true }));
        expect(body.buckets).toHaveLength(81);
      });

      it('hour buckets whose first and last hours are outside whole days', async () => {
        // 21:00 on the 11th to 02:00 on the 14th: 3 hours, two whole days, 2 hours.
        const start = Date.parse('2031-03-11T21:40:00Z');
        const end = Date.parse('2031-03-14T01:10:00Z');
        const body = await usage(`granularity=hour&start=${at(start)}&end=${at(end)}&group_by=product${flag}`);
        const ref = reference({ orgs: [A.org], start, end, unit: HOUR, internal, byProduct: true });
        expect(body).toEqual(ref);
        const head = ref.buckets.slice(0, 3).reduce((n, b) => n + b.view, 0);
        const tail = ref.buckets.slice(-2).reduce((n, b) => n + b.view, 0);
        expect(head * tail).toBeGreaterThan(0);
      });

      it('a window that leaves events out, widened to whole hours', async () => {
        const start = NOW - 12 * HOUR + 17 * MIN;
        const end = NOW - 3 * HOUR + 5 * MIN;
        const body = await usage(`granularity=hour&start=${at(start)}&end=${at(end)}&group_by=product${flag}`);
        expect(body).toEqual(reference({ orgs: [A.org], start, end, unit: HOUR, internal, byProduct: true }));
        expect(body.start).toBe('2031-03-13T22:00:00.000Z');
        expect(body.end).toBe('2031-03-14T08:00:00.000Z');
      });

      it('one past day, without by_product', async () => {
        const start = Date.parse('2031-03-13T00:00:00Z');
        const body = await usage(`start=${at(start)}&end=${at(start + DAY)}${flag}`);
        expect(body).toEqual(reference({ orgs: [A.org], start, end: start + DAY, unit: DAY, internal }));
        expect(body).not.toHaveProperty('by_product');
      });

      it('event_type filters (repeated)', async () => {
        const body = await usage(`event_type=ar_enter&event_type=ar_session_ended&granularity=hour&start=${at(NOW - 26 * HOUR)}&end=${at(NOW + HOUR)}&group_by=product${flag}`);
        const ref = reference({ orgs: [A.org], start: NOW - 26 * HOUR, end: NOW + HOUR, unit: HOUR, internal, types: ['ar_enter', 'ar_session_ended'], byProduct: true });
        expect(body).toEqual(ref);
        expect(body.totals.view).toBe(0);
      });
    });
  }

  it('totals count subjects with no product row (and another org\'s product id) that by_product leaves out', async () => {
    const body = await usage('group_by=product&include_internal=true');
    const listed = body.by_product.map((p: { product_id: string }) => p.product_id);
    expect(listed.some((id: string) => id.startsWith('scan_') || titles.get(id)?.org !== A.org)).toBe(false);
    const unknown = sent.filter((e) => e.org === A.org && titles.get(e.subject)?.org !== A.org).length;
    expect(unknown).toBeGreaterThan(0);
    const inTotals = TYPES.reduce((n, t) => n + body.totals[t], 0);
    expect(inTotals).toBe(sent.filter((e) => e.org === A.org).length);
  });

  it('product_id needs no org_id: the product names its organization', async () => {
    const product = [...titles].find(([, v]) => v.org === A.org && v.title === 'Chair 00')![0];
    const body = await usage(`product_id=${product}&include_internal=true&group_by=product`, { cookie });
    const end = Math.ceil(NOW / DAY) * DAY;
    expect(body).toEqual(reference({ orgs: [A.org], start: end - 30 * DAY, end, unit: DAY, internal: true, subject: product, byProduct: true }));
    expect(body.by_product).toHaveLength(1);
  });

  it('scope=all adds up every organization the caller reaches; org_id picks one', async () => {
    const end = Math.ceil(NOW / DAY) * DAY;
    const all = await usage('scope=all&include_internal=true&group_by=product', { cookie });
    expect(all).toEqual(reference({ orgs: [A.org, C.org], start: end - 30 * DAY, end, unit: DAY, internal: true, byProduct: true }));
    const onlyC = await usage(`org_id=${C.org}&include_internal=true&group_by=product`, { cookie });
    expect(onlyC).toEqual(reference({ orgs: [C.org], start: end - 30 * DAY, end, unit: DAY, internal: true, byProduct: true }));
  });

  it("another organization sees only its own events", async () => {
    const end = Math.ceil(NOW / DAY) * DAY;
    const body = await usage('include_internal=true&group_by=product', bearer(B.sk));
    expect(body).toEqual(reference({ orgs: [B.org], start: end - 30 * DAY, end, unit: DAY, internal: true, byProduct: true }));
  });
});
