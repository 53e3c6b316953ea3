// Resident memory of a process and everything it started (a server, its media children, its Chromium), read
// from /proc; 0 where there is no /proc.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Resident memory of `pid` and its descendants, in MB. */
export function treeMb(pid) {
  if (!pid || !existsSync('/proc')) return 0;
  const children = new Map();
  const rss = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      rss.set(Number(entry), (Number(fields[21]) * 4096) / 2 ** 20);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const stack = [pid]; stack.length; ) {
    const p = stack.pop();
    total += rss.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

/** Samples treeMb(pid()) every `everyMs` until stop(), which returns the peak. */
export function peakSampler(pid, everyMs = 250) {
  let peak = 0;
  const timer = setInterval(async () => {
    peak = Math.max(peak, treeMb(await pid()));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** The p-th percentile (0–100) of `xs`, nearest rank. */
export function percentile(xs, p) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
