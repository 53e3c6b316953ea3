import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULES = fileURLToPath(new URL('./modules/', import.meta.url));

/** What a module with routes lacks of its three intent files: `<area>.happy`, `.error` and `.security`. */
export function missingIntents(modulesDir: string): string[] {
  const missing: string[] = [];
  for (const area of readdirSync(modulesDir).sort()) {
    const dir = join(modulesDir, area);
    if (!statSync(dir).isDirectory() || !readdirSync(dir).some((f) => f.endsWith('.routes.ts'))) continue;
    for (const intent of ['happy', 'error', 'security']) {
      if (!existsSync(join(dir, `${area}.${intent}.test.ts`))) missing.push(`${area}/${area}.${intent}.test.ts`);
    }
  }
  return missing;
}

describe('tests by intent', () => {
  it('every module with routes has its happy, error and security test files', () => {
    expect(missingIntents(MODULES)).toEqual([]);
  });

  it('a module with routes and no tests is reported', () => {
    const root = mkdtempSync(join(tmpdir(), 'plinth-intents-'));
    try {
      mkdirSync(join(root, 'shelves'));
      writeFileSync(join(root, 'shelves', 'shelves.routes.ts'), '');
      writeFileSync(join(root, 'shelves', 'shelves.happy.test.ts'), '');
      mkdirSync(join(root, 'quiet'));
      writeFileSync(join(root, 'quiet', 'quiet.service.ts'), '');
      expect(missingIntents(root)).toEqual(['shelves/shelves.error.test.ts', 'shelves/shelves.security.test.ts']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
