// Resident memory of a process and everything it started (a server, its media children, its Chromium), read
// from /proc; 0 where there is no /proc.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** The sum of `value(fields)` over `pid` and its live descendants; `fields` are /proc/PID/stat's after the name. */
function sumOverTree(pid, value) {
  if (!pid || !existsSync('/proc')) return 0;
  const children = new Map();
  const values = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      values.set(Number(entry), value(fields));
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const stack = [pid]; stack.length; ) {
    const p = stack.pop();
    total += values.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

/** Resident memory of `pid` and its descendants, in MB. */
export function treeMb(pid) {
  return sumOverTree(pid, (fields) => (Number(fields[21]) * 4096) / 2 ** 20);
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
  // utime, stime, cutime, cstime: the process's own threads and its reaped children.
  return sumOverTree(pid, (f) => Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / ticksPerSecond();
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
