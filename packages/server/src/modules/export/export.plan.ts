import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db.js';
import { imagesOf } from '../products/index.js';
import { cutoutOf } from '../products/index.js';
import type { ImageRecord, ReviewStatus } from '../products/index.js';
import { resolveSettings, settingsCacheKey, type ImageSettings, type ImageSettingsInput, type PresetName } from '@plinth/media';

export interface PlannedEntry {
  path: string;
  productId: string;
  orgId: string;
  image: ImageRecord;
  settings: ImageSettings;
  /** The image's own settings, with no export preset over them. */
  ownSettings: boolean;
  /** where the finished image is cached; exists once finished */
  cacheKey: string;
  contentType: string;
}

export interface SkippedImage {
  product_id: string;
  image_id: string;
  reason: string;
  image_review_status: ReviewStatus;
}

export interface ExportPlan {
  entries: PlannedEntry[];
  skipped: SkippedImage[];
  productIds: string[];
  /** The channel applied over every image's settings, or null for each image's own. */
  preset: PresetName | null;
  /** Leave the images that fail a compliance check out of the archive. */
  strict: boolean;
}

export interface PlanOptions {
  preset?: PresetName | null;
  strict?: boolean;
}

const EXT = { jpeg: 'jpg', png: 'png', webp: 'webp' } as const;
const TYPE = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' } as const;

/** Folder names come from custom ids, which users write: only safe characters, never `..` or a leading `/`. */
export function safeName(raw: string): string {
  const cleaned = raw
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 100);
  return cleaned || '_';
}

const imageIdentity = (i: ImageRecord) => i.sha256 ?? `image:${i.id}:${i.updatedAt}`;

/**
 * Which images go into the archive, under which names, with which settings; and which are skipped, why.
 * Deterministic for a given database state, so a repeated request and a download link build the same ZIP.
 */
export async function planExport(
  db: Executor,
  products: { id: string; org_id: string; custom_id: string | null }[],
  statuses: ReviewStatus[],
  options: PlanOptions = {},
): Promise<ExportPlan> {
  const preset = options.preset ?? null;
  const images = await imagesOf(db, products.map((p) => p.id));
  const entries: PlannedEntry[] = [];
  const skipped: SkippedImage[] = [];
  const usedFolders = new Set<string>();
  for (const p of [...products].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    let folder = p.custom_id ? safeName(p.custom_id) : p.id;
    if (usedFolders.has(folder.toLowerCase())) folder = `${folder}-${p.id}`;
    usedFolders.add(folder.toLowerCase());
    for (const image of images.get(p.id) ?? []) {
      if (!image.storageKey || image.error) {
        skipped.push({ product_id: p.id, image_id: image.id, reason: image.error?.code ?? 'no_file', image_review_status: image.reviewStatus });
        continue;
      }
      if (!statuses.includes(image.reviewStatus)) {
        skipped.push({ product_id: p.id, image_id: image.id, reason: 'not_selected', image_review_status: image.reviewStatus });
        continue;
      }
      // A photo where no product was found would come out as the whole photo with a shadow: only a
      // reviewer's acceptance lets it through.
      if (cutoutOf(image)?.status === 'none' && image.reviewStatus !== 'accepted') {
        skipped.push({ product_id: p.id, image_id: image.id, reason: 'no_cutout', image_review_status: image.reviewStatus });
        continue;
      }
      // The export's preset replaces the image's own; the image's explicit fields still override it.
      const own = image.settings as ImageSettingsInput;
      const settings = resolveSettings(preset ? { ...own, preset } : own);
      const key = settingsCacheKey(imageIdentity(image), settings);
      entries.push({
        path: `${folder}/${image.position}-${image.id}.${EXT[settings.format]}`,
        productId: p.id,
        orgId: p.org_id,
        image,
        settings,
        ownSettings: !preset || preset === own.preset,
        cacheKey: `orgs/${p.org_id}/finished/${key}.${EXT[settings.format]}`,
        contentType: TYPE[settings.format],
      });
    }
  }
  return { entries, skipped, productIds: products.map((p) => p.id), preset, strict: options.strict ?? false };
}

/** Where the measurements of a finished image are kept, beside it in the cache. */
export const measurementsKey = (entry: PlannedEntry) => `${entry.cacheKey}.json`;

/** Entries whose finished image is not cached yet (its measurements are written last). */
export async function pendingEntries(deps: Deps, plan: ExportPlan): Promise<PlannedEntry[]> {
  const found = await Promise.all(plan.entries.map((e) => deps.storage.head(measurementsKey(e))));
  return plan.entries.filter((_, i) => !found[i]);
}

export function selectionHash(productIds: string[], statuses: string[], options: PlanOptions = {}): string {
  const selection: unknown[] = [[...productIds].sort(), [...statuses].sort()];
  // Only when given, so the hashes of exports queued before presets existed stay what they were.
  if (options.preset || options.strict) selection.push(options.preset ?? null, options.strict ?? false);
  return createHash('sha256').update(JSON.stringify(selection)).digest('hex');
}
