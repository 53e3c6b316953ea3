import { evaluateCompliance, failedCodes, type Compliance, type ComplianceCode, type FinishMeasurements } from '@plinth/media';
import type { Deps } from '../../deps.js';
import { cutoutOf } from '../products/index.js';
import { updateImage } from '../products/index.js';
import { finishAll } from './export.finishing.js';
import { measurementsKey, pendingEntries, planExport, type ExportPlan, type PlannedEntry } from './export.plan.js';

export interface CheckedEntry {
  entry: PlannedEntry;
  measurements: FinishMeasurements;
  compliance: Compliance;
}

export interface NonCompliant {
  product_id: string;
  image_id: string;
  path: string;
  failed: ComplianceCode[];
}

export interface CheckedPlan {
  /** What goes into the archive: every entry, or with `strict` only those that pass. */
  included: CheckedEntry[];
  nonCompliant: NonCompliant[];
}

/**
 * Judges every finished entry against its preset (the export's, else the image's own). The measurements
 * come from the finishing, taken on the finished file and the cut-out; the cut-out status is read now, as
 * a reviewer may have changed it since the image was finished.
 */
export async function checkPlan(deps: Deps, plan: ExportPlan): Promise<CheckedPlan> {
  const checked = await Promise.all(
    plan.entries.map(async (entry): Promise<CheckedEntry> => {
      const measurements = JSON.parse((await deps.storage.getBuffer(measurementsKey(entry))).toString('utf8')) as FinishMeasurements;
      const compliance = evaluateCompliance(measurements, entry.settings.preset, cutoutOf(entry.image)?.status ?? null);
      return { entry, measurements, compliance };
    }),
  );
  const nonCompliant = checked
    .filter((c) => !c.compliance.passed)
    .map((c) => ({ product_id: c.entry.productId, image_id: c.entry.image.id, path: c.entry.path, failed: failedCodes(c.compliance) }));
  return { included: plan.strict ? checked.filter((c) => c.compliance.passed) : checked, nonCompliant };
}

/** One line per image that fails, for the mail of a queued export. */
export function nonCompliantText(plan: ExportPlan, nonCompliant: NonCompliant[]): string {
  if (!nonCompliant.length) return plan.preset ? `Every image meets the rules of ${plan.preset}.\n` : '';
  const head = plan.strict
    ? `${nonCompliant.length} images failed a check${plan.preset ? ` of ${plan.preset}` : ''} and were left out (reason non_compliant in manifest.json):`
    : `${nonCompliant.length} images failed a check${plan.preset ? ` of ${plan.preset}` : ''} (listed under non_compliant in manifest.json):`;
  return `${head}\n${nonCompliant.map((n) => `- ${n.path}: ${n.failed.join(', ')}`).join('\n')}\n`;
}

/**
 * An image's compliance with its own settings, measured now: finished at full size (or taken from the
 * finishing cache) and recorded on the image, as an export with the image's own settings records it.
 */
export async function measureImageCompliance(deps: Deps, product: { id: string; org_id: string; custom_id: string | null }, imageId: string): Promise<Compliance | null> {
  const plan = await planExport(deps.database.db, [product], ['accepted', 'pending', 'rejected']);
  const entry = plan.entries.find((e) => e.image.id === imageId);
  if (!entry) return null;
  const single = { ...plan, entries: [entry] };
  const pending = await pendingEntries(deps, single);
  if (pending.length) await finishAll(deps, pending);
  const [checked] = (await checkPlan(deps, single)).included;
  await updateImage(deps.database.db, imageId, { compliance: JSON.stringify(checked.compliance), channel_ready: checked.compliance.passed ? 1 : 0 });
  return checked.compliance;
}
