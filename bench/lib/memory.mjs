// Resident memory of a process and everything it started (a server, its media children, its Chromium), read
// from /proc; 0 where there is no /proc.
import { execFileSync } from 'node:child_process';
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

let clockTicks = 0;
function ticksPerSecond() {
  if (!clockTicks) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * CPU seconds (user + system) spent so far by `pid`, its threads, its live descendants and the children it has
 * already reaped (a finished COLMAP run), from /proc; 0 where there is no /proc. The difference between two reads
 * is the CPU a step used, which on a shared machine says more than its wall time.
 */
export function treeCpuSeconds(pid) {
  if (!pid || !existsSync('/proc')) return 0;
  const children = new Map();
  const ticks = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      // utime, stime, cutime, cstime: the process's own threads and its reaped children.
      ticks.set(Number(entry), Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]));
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const stack = [pid]; stack.length; ) {
    const p = stack.pop();
    total += ticks.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total / ticksPerSecond();
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
