import type { Deps } from './deps.js';

/**
 * Registers every module's job handlers on the queue. Each capability adds its `<area>.jobs.ts`
 * here in one line.
 */
export function registerJobHandlers(deps: Deps): void {
  void deps;
}
