// CPU time a server process spends per request, read from /proc (Linux). On a shared, loaded
// machine requests/s mostly says how much CPU the scheduler handed out; CPU per request says how
// much work one request is, which is what a code change moves.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** The pid of the process listening on a local TCP port, or null where `ss` or /proc is missing. */
export function pidListeningOn(port) {
  try {
    const out = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = Number(/pid=(\d+)/.exec(out)?.[1]);
    return pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** User + system CPU milliseconds the process has used so far, or NaN when unreadable. */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return NaN;
  }
}
