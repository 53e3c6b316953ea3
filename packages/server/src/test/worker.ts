import type { Deps } from '../deps.js';
import { registerJobHandlers } from '../worker.js';
import { createTestApp, type TestApp } from './app.js';

/** A test app that also runs the jobs it queues, as `plinth serve` with its embedded worker does. */
export async function createWorkingTestApp(env: Record<string, string> = {}, overrides: Partial<Deps> = {}): Promise<TestApp> {
  const t = await createTestApp(env, overrides);
  registerJobHandlers(t.deps);
  await t.deps.jobs.start();
  return t;
}
