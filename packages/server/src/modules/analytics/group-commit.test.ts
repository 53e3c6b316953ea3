import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit, GroupCommitClosedError } from './group-commit.js';

/** A writer that records each transaction and lets the test decide when it commits. */
function recorder(opts: { fail?: (items: number[]) => boolean; hold?: boolean } = {}) {
  const batches: number[][] = [];
  const release: Array<() => void> = [];
  const write = async (items: number[]) => {
    batches.push(items);
    if (opts.hold) await new Promise<void>((r) => release.push(r));
    if (opts.fail?.(items)) throw new Error('disk on fire');
  };
  return { batches, release, write };
}

const settled = async <T>(p: Promise<T>) => {
  let state = 'pending';
  p.then(() => (state = 'resolved'), () => (state = 'rejected'));
  await new Promise((r) => setImmediate(r));
  return state;
};

describe('group commit', () => {
  it('requests arriving within the window share one transaction', async () => {
    const r = recorder();
    const gc = new GroupCommit(r.write, { windowMs: 5, maxItems: 500 });
    await Promise.all([gc.submit([1]), gc.submit([2, 3]), gc.submit([4])]);
    expect(r.batches).toEqual([[1, 2, 3, 4]]);
    expect(gc.stats).toEqual({ batches: 1, items: 4 });
  });

  it('what waited behind a transaction goes to the writer before that transaction\'s callers are answered', async () => {
    const r = recorder({ hold: true });
    const gc = new GroupCommit(r.write, { windowMs: 0, maxItems: 500 });
    const order: string[] = [];
    const first = gc.submit([1]).then(() => order.push(`answered ${r.batches.length} batches written`));
    await new Promise((res) => setImmediate(res));
    const second = gc.submit([2, 3]);
    expect(r.batches).toEqual([[1]]);
    r.release.shift()!();
    await first;
    // The second transaction was already with the writer when the first's caller heard back.
    expect(order).toEqual(['answered 2 batches written']);
    expect(r.batches).toEqual([[1], [2, 3]]);
    r.release.shift()!();
    await second;
  });

  it('a full batch is written at once, without waiting out the window', async () => {
    const r = recorder();
    const gc = new GroupCommit(r.write, { windowMs: 60_000, maxItems: 3 });
    const done = Promise.all([gc.submit([1, 2]), gc.submit([3])]);
    // Written in this turn of the event loop: a batch that waited for the window would not be there yet.
    expect(r.batches).toEqual([[1, 2, 3]]);
    await done;
  });

  it('a request is never split, and a batch stops at maxItems unless one request alone is larger', async () => {
    const r = recorder({ hold: true });
    const gc = new GroupCommit(r.write, { windowMs: 0, maxItems: 4 });
    const first = gc.submit([0]);
    await new Promise((res) => setImmediate(res));
    // While the first transaction is in flight, three requests queue up behind it.
    const rest = [gc.submit([1, 2, 3]), gc.submit([4, 5]), gc.submit([6, 7, 8, 9, 10])];
    while (r.batches.length < 4) {
      r.release.shift()?.();
      await new Promise((res) => setTimeout(res, 1));
    }
    r.release.shift()?.();
    await Promise.all([first, ...rest]);
    expect(r.batches).toEqual([[0], [1, 2, 3], [4, 5], [6, 7, 8, 9, 10]]);
  });

  it('never answers before the transaction has committed', async () => {
    const r = recorder({ hold: true });
    const gc = new GroupCommit(r.write, { windowMs: 0, maxItems: 500 });
    const p = gc.submit([1]);
    await new Promise((res) => setTimeout(res, 10));
    expect(r.batches).toEqual([[1]]);
    expect(await settled(p)).toBe('pending');
    r.release.shift()!();
    await p;
  });

  it("a failed transaction fails only the request that caused it: the others are retried alone", async () => {
    const r = recorder({ fail: (items) => items.includes(13) });
    const gc = new GroupCommit(r.write, { windowMs: 5, maxItems: 500 });
    const results = await Promise.allSettled([gc.submit([1]), gc.submit([13]), gc.submit([2])]);
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(r.batches).toEqual([[1, 13, 2], [1], [13], [2]]);
    expect(gc.stats.items).toBe(2);
  });

  it('close() writes what is waiting, then refuses new work', async () => {
    const r = recorder();
    const gc = new GroupCommit(r.write, { windowMs: 60_000, maxItems: 500 });
    const waiting = gc.submit([1, 2]);
    await gc.close();
    await waiting;
    expect(r.batches).toEqual([[1, 2]]);
    await expect(gc.submit([3])).rejects.toBeInstanceOf(GroupCommitClosedError);
  });

  describe('callbacks (enqueue)', () => {
    afterEach(() => vi.unstubAllGlobals());

    it('each waiter is called back once, after its commit; one that throws neither silences the others nor fails the commit', async () => {
      const thrown: unknown[] = [];
      // The callback's error is thrown on its own turn, as a promise handler's would be: caught here instead.
      vi.stubGlobal('queueMicrotask', (fn: () => void) => {
        try {
          fn();
        } catch (err) {
          thrown.push(err);
        }
      });
      const r = recorder();
      const gc = new GroupCommit(r.write, { windowMs: 0, maxItems: 500 });
      const calls: string[] = [];
      const waiter = (name: string, onDone?: () => void) => [
        () => {
          calls.push(`${name} committed`);
          onDone?.();
        },
        (err: unknown) => calls.push(`${name} failed: ${(err as Error).message}`),
      ] as const;
      gc.enqueue([1], ...waiter('a', () => { throw new Error('a socket gone'); }));
      gc.enqueue([2], ...waiter('b'));
      gc.enqueue([3], ...waiter('c'));
      await new Promise((resolve) => setImmediate(resolve));
      await gc.close();
      expect(calls).toEqual(['a committed', 'b committed', 'c committed']);
      expect(thrown).toEqual([new Error('a socket gone')]);
      expect(r.batches).toEqual([[1, 2, 3]]);
    });

    it('a closed writer refuses at once; an empty request is committed at once', async () => {
      const r = recorder();
      const gc = new GroupCommit(r.write, { windowMs: 0, maxItems: 500 });
      const calls: string[] = [];
      gc.enqueue([], () => calls.push('empty committed'), () => calls.push('empty failed'));
      await gc.close();
      gc.enqueue([1], () => calls.push('late committed'), (err) => calls.push(`late failed: ${(err as Error).name}`));
      expect(calls).toEqual(['empty committed', 'late failed: GroupCommitClosedError']);
      expect(r.batches).toEqual([]);
    });
  });
});
