import { describe, expect, it } from 'vitest';
import { retryOnDeadlock } from './pgboss-queue.js';

/** An error as node-postgres reports one, with its SQLSTATE. */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('retryOnDeadlock (two workers creating pg-boss queues at once)', () => {
  it('runs the work again after PostgreSQL picked it as a deadlock victim, and returns its result', async () => {
    let calls = 0;
    const result = await retryOnDeadlock(async () => {
      calls++;
      if (calls < 3) throw pgError('40P01', 'deadlock detected');
      return 'created';
    });
    expect(result).toBe('created');
    expect(calls).toBe(3);
  });

  it('throws any other error at once, and a deadlock on the last attempt', async () => {
    let calls = 0;
    await expect(
      retryOnDeadlock(async () => {
        calls++;
        throw pgError('42P01', 'relation does not exist');
      }),
    ).rejects.toThrow('relation does not exist');
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      retryOnDeadlock(async () => {
        calls++;
        throw pgError('40P01', 'deadlock detected');
      }, 2),
    ).rejects.toThrow('deadlock detected');
    expect(calls).toBe(2);
  });
});
