// External tools (COLMAP, ffmpeg, ffprobe) run in a process group of their own, so a kill reaches whatever
// they started, and they die with the process that started them: killed on timeout as a group, and every group
// still running is killed when this process exits (the sandbox child exits as soon as its parent is gone).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const live = new Set<ChildProcess>();
let hooked = false;

/** Kills `child` and everything in its process group; the child alone where groups do not exist. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** Kills every tool this process started that is still running. */
export function killAllGroups(): void {
  for (const child of live) killGroup(child);
  live.clear();
}

/** spawn() in a new process group (never through a shell), remembered until it exits. */
export function spawnInGroup(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  if (!hooked) {
    hooked = true;
    // 'exit' runs on process.exit() and a normal end; a SIGKILLed process runs nothing, which is why the
    // sandbox's parent also kills the child's descendants (killTree) when it kills the child.
    process.on('exit', killAllGroups);
  }
  const child = spawn(command, args, { ...options, shell: false, detached: process.platform !== 'win32' });
  if (child.pid) {
    live.add(child);
    child.once('exit', () => live.delete(child));
  }
  return child;
}

/** Process ids of `pid`'s descendants, deepest last, read from /proc (empty where there is none). */
export function descendants(pid: number): number[] {
  if (!existsSync('/proc')) return [];
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid)!.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  for (let i = 0, queue = [pid]; i < queue.length; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * Memory of `pid` and its descendants in MB, by proportional set size (a page shared by N processes counts 1/N in
 * each, so a browser's processes add up to what it really holds); null where /proc cannot say.
 */
export function treeMemoryMb(pid: number): number | null {
  let kb = 0;
  for (const p of [pid, ...descendants(pid)]) {
    try {
      const rollup = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
    } catch {
      if (p === pid) return null;
    }
  }
  return kb / 1024;
}

/** SIGKILLs `pid` and every process below it, groups of their own included. */
export function killTree(pid: number): void {
  // Read before the kill: once a parent dies its children are re-parented and can no longer be found.
  const below = descendants(pid);
  for (const p of [pid, ...below]) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
