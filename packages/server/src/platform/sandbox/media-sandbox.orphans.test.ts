import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { waitFor } from '../../test/fixture-server.js';
import { childEntry, MediaSandbox } from './media-sandbox.js';

// A tool the sandbox child starts (`sleep`, in a process group of its own, as COLMAP and ffmpeg are) must not
// outlive the child, whether the sandbox kills the child or the child's parent is itself killed.
const entry = childEntry();
if (!entry) console.log('\n[plinth] media sandbox tests skipped: run `npm run build -w @plinth/media` first (they run its compiled child).\n');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const gone = (pid: number, what: string) => waitFor(async () => !alive(pid), 20_000, what);

const sandboxes: MediaSandbox[] = [];
const leftovers: number[] = [];
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/** A worker stand-in: forks the sandbox child, has it start a tool, prints both pids, then waits to be killed. */
const PARENT = `
const { fork } = require('node:child_process');
const child = fork(process.argv[1], [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
child.on('message', (m) => {
  if (m.type === 'ready') child.send({ type: 'run', id: 1, op: 'sandbox.probe', input: { toolSeconds: 300 } });
  if (m.type === 'done') console.log(JSON.stringify({ child: child.pid, tool: m.output.toolPid }));
});
setInterval(() => {}, 1000);
`;

describe.skipIf(!entry)('media sandbox: no tool outlives its process', () => {
  it("a tool started by the child dies when the child's parent is killed with SIGKILL", async () => {
    const parent = spawn(process.execPath, ['-e', PARENT, entry!], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      parent.once('exit', () => reject(new Error('the parent exited before the tool started')));
    });
    const { child, tool } = JSON.parse(line) as { child: number; tool: number };
    leftovers.push(child, tool);
    expect(alive(tool)).toBe(true);
    parent.kill('SIGKILL');
    await gone(child, 'the orphaned child to leave');
    await gone(tool, "the child's tool to be killed with it");
  });

  it('a tool dies with the child when the sandbox kills the child (time limit) and when it closes', async () => {
    const sandbox = new MediaSandbox(entry!, { memoryMb: 512, timeoutS: 1, stackKb: 2048, children: 1 }, createLogger('silent'));
    sandboxes.push(sandbox);
    const first = await sandbox.run('sandbox.probe', { toolSeconds: 300 });
    leftovers.push(first.toolPid!);
    expect(alive(first.toolPid!)).toBe(true);
    await expect(sandbox.run('sandbox.probe', { spinMs: 30_000 })).rejects.toMatchObject({ reason: 'processing_limit' });
    await gone(first.toolPid!, 'the tool of the child killed for its time');

    const second = await sandbox.run('sandbox.probe', { toolSeconds: 300 });
    leftovers.push(second.toolPid!);
    await sandbox.close();
    await gone(second.toolPid!, 'the tool of the closed sandbox');
  });
});
