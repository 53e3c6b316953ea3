import type { TestApp } from './app.js';

type Table = 'products' | 'images' | 'product_tags' | 'jobs' | 'events' | 'quote_uses' | 'credit_ledger' | 'uploads' | 'projects' | 'api_keys' | 'experiments' | 'webhook_endpoints';

export const PRODUCT_TABLES: Table[] = ['products', 'images', 'product_tags', 'jobs', 'events', 'quote_uses', 'credit_ledger', 'uploads'];

/**
 * What a refused request must leave as it was: row counts of the given tables, an organization's credit
 * balance, and the stored files. Compare one taken before with one taken after.
 */
export async function snapshot(t: TestApp, tables: Table[] = PRODUCT_TABLES, orgId = t.org.org_id) {
  const db = t.deps.database.db;
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  const org = await db.selectFrom('organizations').select('credit_balance').where('id', '=', orgId).executeTakeFirstOrThrow();
  const files = await t.deps.storage.list('orgs/');
  return { counts, balance: org.credit_balance, files: files.sort() };
}

/** The envelope every non-2xx answer carries, with its stable code; returns the error for further checks. */
export function expectEnvelope(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code: string) {
  const body = res.json();
  if (res.statusCode !== status || body?.error?.code !== code) throw new Error(`expected ${status} ${code}, got ${res.statusCode} ${JSON.stringify(body)}`);
  const error = body.error as { code: string; message: string; details: any; request_id: string };
  if (typeof error.message !== 'string' || !error.message) throw new Error('the envelope has no message');
  if (error.request_id !== res.headers['x-request-id']) throw new Error('the envelope request_id is not the x-request-id header');
  if (!('details' in error)) throw new Error('the envelope has no details');
  return error;
}
