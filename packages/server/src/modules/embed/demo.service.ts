import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Deps } from '../../deps.js';
import { findUserByEmail, membershipsOfUser } from '../auth/index.js';
import { tokenHash } from '../auth/index.js';
import { keyByHash } from '../keys/index.js';
import { createKeyRecord } from '../keys/index.js';
import { findProduct } from '../products/index.js';
import type { ProductRecord } from '../products/index.js';
import { projectsOf } from '../projects/index.js';

/** `plinth serve` creates the demo organization for this user on an empty data dir (cli.ts). */
export const DEMO_EMAIL = 'demo@plinth.local';
export const DEMO_KEY_FILE = 'demo-publishable-key';

export interface DemoPage {
  product: ProductRecord;
  publishableKey: string;
}

type DemoDeps = Pick<Deps, 'database' | 'clock' | 'config'>;

interface DemoProject {
  orgId: string;
  projectId: string;
  userId: string;
}

/**
 * The demo organization is the oldest one the demo user owns (ids sort by creation), and its
 * project the oldest of that organization: the pair `plinth serve` made at first start.
 */
async function demoProject(deps: DemoDeps): Promise<DemoProject | null> {
  const db = deps.database.db;
  const user = await findUserByEmail(db, DEMO_EMAIL);
  if (!user) return null;
  const owned = (await membershipsOfUser(db, user.id)).find((m) => m.role === 'owner');
  if (!owned) return null;
  const { rows } = await projectsOf(db, [owned.org_id], { limit: 100, offset: 0 });
  const oldest = rows.at(-1);
  return oldest ? { orgId: owned.org_id, projectId: oldest.id, userId: user.id } : null;
}

/**
 * Keys are stored hashed, so the bootstrap key printed at first start cannot be read back. The demo
 * page therefore owns a dedicated publishable key, created on first use and kept in the data dir
 * (`demo-publishable-key`), and checked on every use so a revoked or foreign key is replaced.
 */
export class DemoKeys {
  private creating: Promise<string> | null = null;

  constructor(private readonly deps: DemoDeps) {}

  get file(): string {
    return join(this.deps.config.dataDir, DEMO_KEY_FILE);
  }

  /** The demo page for a product, or null when it is not a published product of the demo org. */
  async page(productId: string): Promise<DemoPage | null> {
    const demo = await demoProject(this.deps);
    if (!demo) return null;
    const product = await findProduct(this.deps.database.db, productId, [demo.orgId]);
    if (!product || product.status !== 'published') return null;
    return { product, publishableKey: await this.keyFor(demo) };
  }

  private async keyFor(demo: DemoProject): Promise<string> {
    const stored = await readFile(this.file, 'utf8').then((s) => s.trim(), () => null);
    if (stored && (await this.usable(stored, demo))) return stored;
    // One creation at a time in this process: two first visits must not mint two keys.
    this.creating ??= this.create(demo).finally(() => {
      this.creating = null;
    });
    return this.creating;
  }

  private async usable(key: string, demo: DemoProject): Promise<boolean> {
    if (!key.startsWith('pk_')) return false;
    const row = await keyByHash(this.deps.database.db, tokenHash(key));
    return !!row && row.type === 'publishable' && !row.revoked_at && row.project_id === demo.projectId;
  }

  private async create(demo: DemoProject): Promise<string> {
    const { key } = await createKeyRecord(this.deps.database.db, this.deps.clock.now().toISOString(), {
      type: 'publishable',
      orgIds: [demo.orgId],
      projectId: demo.projectId,
      scopes: [],
      name: 'Demo page (/demo)',
      createdBy: demo.userId,
    });
    await mkdir(this.deps.config.dataDir, { recursive: true });
    // Written whole, then renamed: a reader never sees half a key.
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(tmp, key + '\n', { mode: 0o600 });
    await rename(tmp, this.file);
    return key;
  }
}
