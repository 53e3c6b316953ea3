import type { Kysely, Transaction } from 'kysely';
import type { ModuleTables } from './modules/tables.js';
import type { PlatformTables } from './platform/db/index.js';

/**
 * Every table of the app: the platform's own, then each module's (composed in `modules/tables.ts`). Composed
 * here, at the top, so that `platform/` never imports a module. The one import of this file that runs back up:
 * a module's repository takes the app's `DB`, which holds its own tables among the others (types only).
 */
export interface DB extends PlatformTables, ModuleTables {}

/** A connection or a transaction over the app's tables: what repositories and services take. */
export type Executor = Kysely<DB> | Transaction<DB>;
