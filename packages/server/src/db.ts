import type { Kysely, Transaction } from 'kysely';
import type { AnalyticsTables } from './modules/analytics/analytics.tables.js';
import type { ExperimentsTables } from './modules/experiments/experiments.tables.js';
import type { ExportTables } from './modules/export/export.tables.js';
import type { ProductsTables } from './modules/products/products.tables.js';
import type { QuotesTables } from './modules/quotes/quotes.tables.js';
import type { UploadsTables } from './modules/uploads/uploads.tables.js';
import type { WebhooksTables } from './modules/webhooks/webhooks.tables.js';
import type { PlatformTables } from './platform/db/index.js';

/**
 * Every table of the app: the platform's own, then each module's, declared beside its code
 * (`<area>.tables.ts`, created by its `<area>.migration.ts`). Composed here, at the top, so that
 * `platform/` never imports a module; a module with a new table adds one line.
 */
export interface DB extends PlatformTables, ProductsTables, UploadsTables, QuotesTables, AnalyticsTables, ExportTables, WebhooksTables, ExperimentsTables {}

/** A connection or a transaction over the app's tables: what repositories and services take. */
export type Executor = Kysely<DB> | Transaction<DB>;
