// One request at a time over one keep-alive connection: the latency a single caller sees, with no
// queueing behind other requests (which is what a throughput run would measure instead).
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

function get(agent, url, headers) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks), ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/**
 * Sends `warmup` unmeasured requests, then `count` measured ones, one after the other.
 * Returns { p50, p90, p99, max, mean } in ms, plus the last answer's status and parsed body.
 */
export async function sequentialLatency(url, { headers = {}, count = 300, warmup = 30 } = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    let last;
    for (let i = 0; i < warmup; i++) last = await get(agent, url, headers);
    const times = [];
    for (let i = 0; i < count; i++) {
      last = await get(agent, url, headers);
      if (last.status !== 200) throw new Error(`${url} answered ${last.status}: ${last.body.toString().slice(0, 300)}`);
      times.push(last.ms);
    }
    times.sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    return {
      p50: pct(times, 0.5),
      p90: pct(times, 0.9),
      p99: pct(times, 0.99),
      max: times[times.length - 1],
      mean,
      count,
      status: last.status,
      body: JSON.parse(last.body.toString()),
    };
  } finally {
    agent.destroy();
  }
}
