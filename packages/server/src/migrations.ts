import { idempotencyPrincipalMigration } from './http/idempotency.migration.js';
import {
  analyticsMigration,
  beaconEventRowKeyMigration,
  engagementMigration,
  experimentExposuresMigration,
  usageSegmentsMigration,
} from './modules/analytics/analytics.migration.js';
import { experimentsMigration } from './modules/experiments/experiments.migration.js';
import { exportsMigration } from './modules/export/export.migration.js';
import { productsMigration } from './modules/products/products.migration.js';
import { imageComplianceMigration } from './modules/products/image-compliance.migration.js';
import { quoteUsesMigration, stepCostsMigration } from './modules/quotes/quotes.migration.js';
import { uploadsMigration, uploadsPrivateMigration, uploadsUsedByMigration } from './modules/uploads/uploads.migration.js';
import { webhooksMigration } from './modules/webhooks/webhooks.migration.js';
import { together, type MigrationSet } from './platform/db/migrations.js';
import { workersMigration } from './platform/jobs/workers.migration.js';

/**
 * Every module's migrations, in the order they run after the platform's own. Each area keeps its
 * migration beside its code; a new one adds a line here. Names never change once released.
 */
export const MODULE_MIGRATIONS: MigrationSet = (dialect) => ({
  '0002_products': together(productsMigration, uploadsMigration, quoteUsesMigration),
  '0003_analytics': analyticsMigration(dialect),
  '0004_webhooks': webhooksMigration(dialect),
  '0005_exports': exportsMigration,
  '0006_idempotency_principal': idempotencyPrincipalMigration,
  '0007_uploads_private': uploadsPrivateMigration,
  '0007_uploads_used_by': uploadsUsedByMigration,
  '0008_step_costs': stepCostsMigration,
  '0009_beacon_event_row_key': beaconEventRowKeyMigration(dialect),
  '0010_workers': workersMigration,
  '0012_image_compliance': imageComplianceMigration,
  '0013_engagement_experiments': together(engagementMigration(), usageSegmentsMigration(dialect), experimentsMigration),
  '0014_experiment_exposures': experimentExposuresMigration(dialect),
});
