import type { AnalyticsTables } from './analytics/analytics.tables.js';
import type { ExperimentsTables } from './experiments/experiments.tables.js';
import type { ExportTables } from './export/export.tables.js';
import type { ProductsTables } from './products/products.tables.js';
import type { QuotesTables } from './quotes/quotes.tables.js';
import type { UploadsTables } from './uploads/uploads.tables.js';
import type { WebhooksTables } from './webhooks/webhooks.tables.js';

/**
 * Every module's tables, each declared beside its code (`<area>.tables.ts`, created by its `<area>.migration.ts`).
 * `src/db.ts` adds them to the platform's; a module with a new table adds one line here.
 */
export interface ModuleTables extends ProductsTables, UploadsTables, QuotesTables, AnalyticsTables, ExportTables, WebhooksTables, ExperimentsTables {}
