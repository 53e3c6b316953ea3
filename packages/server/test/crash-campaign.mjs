// The kill -9 campaign for idempotent creates, shared by the e2e test (small numbers) and
// bench/idempotency-crash.mjs (300 creates, 5 kills). Plain JavaScript so both can import it.
//
// Every create is a model import (POST /v1/products {model_url}) with its own Idempotency-Key.
// Senders keep `concurrency` requests in flight; the server is killed with SIGKILL whenever another
// share of the creates has been answered, then restarted on the same data. A request that got no
// answer is sent again, with the same key, to the next server, until every key has an answer.
// Afterwards: every key's product exists (0 lost), each create made exactly one product
// (0 duplicates), and once the worker has caught up no product is left queued; it says how long after the last
// answer that was, and whether every failed product carries its reason.

/**
 * @param {object} o
 * @param {() => Promise<{ url: string, kill: () => Promise<void> }>} o.start  a server on the same data
 * @param {string} o.secretKey
 * @param {string} o.modelUrl
 * @param {number} o.creates
 * @param {number} o.kills
 * @param {number} [o.concurrency]
 * @param {number} [o.settleMs]  how long the worker may take to finish every import at the end
 * @param {(line: string) => void} [o.log]
 */
export async function runCrashCampaign(o) {
  const concurrency = o.concurrency ?? 8;
  const log = o.log ?? (() => {});
  const answered = new Map(); // index -> product id
  const unexpected = [];
  let unansweredSends = 0;
  let lastAnswerAt = Date.now();
  let server = await o.start();

  const send = async (url, i) => {
    const res = await fetch(`${url}/v1/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${o.secretKey}`, 'content-type': 'application/json', 'idempotency-key': `crash-create-${i}` },
      // The title names the create: a duplicate would be a second product with the same title.
      body: JSON.stringify({ model_url: o.modelUrl, title: `crash ${i}` }),
    });
    const body = await res.json();
    if (res.status !== 202) {
      unexpected.push(`${i}: ${res.status} ${JSON.stringify(body)}`);
      return;
    }
    answered.set(i, body.id);
    lastAnswerAt = Date.now();
  };

  for (let round = 0; round <= o.kills; round++) {
    const last = round === o.kills;
    // Kill once this many creates have an answer (the last round runs until all have one).
    const target = last ? o.creates : Math.floor((o.creates * (round + 1)) / (o.kills + 1));
    const pending = Array.from({ length: o.creates }, (_, i) => i).filter((i) => !answered.has(i));
    let killed = false;
    let next = 0;
    const url = server.url;
    const sender = async () => {
      while (!killed && next < pending.length) {
        const i = pending[next++];
        try {
          await send(url, i);
        } catch {
          if (!killed) throw new Error(`create ${i} failed while the server was up`);
          unansweredSends++;
        }
      }
    };
    const senders = Array.from({ length: concurrency }, sender);
    if (!last) {
      while (answered.size < target && next < pending.length) await new Promise((r) => setTimeout(r, 2));
      killed = true;
      await server.kill();
      await Promise.allSettled(senders);
      log(`round ${round + 1}: killed with ${answered.size} of ${o.creates} answered`);
      server = await o.start();
    } else {
      await Promise.all(senders);
    }
  }

  // The worker catches up: no product may stay queued or in progress.
  const deadline = Date.now() + (o.settleMs ?? 120_000);
  let products = [];
  let busy = Infinity;
  while (Date.now() < deadline) {
    products = await listAll(server.url, o.secretKey);
    busy = products.filter((p) => p.model_status === 'queued' || p.model_status === 'generating').length;
    if (busy === 0) break;
    if (Date.now() % 10_000 < 500) log(`waiting for the worker: ${busy} of ${products.length} products still queued or generating`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const settledAt = busy === 0 ? Date.now() : null;
  const titles = products.map((p) => p.title);
  const ids = new Set(products.map((p) => p.id));
  const result = {
    creates: o.creates,
    kills: o.kills,
    answered: answered.size,
    unexpected,
    unanswered_sends: unansweredSends,
    products: products.length,
    lost: [...answered.values()].filter((id) => !ids.has(id)).length,
    duplicates: titles.length - new Set(titles).size,
    left_busy: busy,
    failed: products.filter((p) => p.model_status === 'failed').length,
    // A failure must say why: its code and message, as the API shows them.
    failed_without_reason: products.filter((p) => p.model_status === 'failed' && !(p.error?.code && p.error?.message)).length,
    // From the last create's answer until no product was queued or generating (null: not within settleMs).
    settled_ms_after_last_answer: settledAt === null ? null : settledAt - lastAnswerAt,
  };
  return { result, server };
}

async function listAll(url, key) {
  const out = [];
  for (let offset = 0; ; offset += 100) {
    const res = await fetch(`${url}/v1/products?limit=100&offset=${offset}`, { headers: { authorization: `Bearer ${key}` } });
    const page = await res.json();
    if (res.status !== 200) throw new Error(`list answered ${res.status}: ${JSON.stringify(page)}`);
    out.push(...page.data);
    if (out.length >= page.total || page.data.length === 0) return out;
  }
}
