import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import yazl from 'yazl';
import type { Deps } from '../../deps.js';
import { checkPlan } from './export.compliance.js';
import type { ExportPlan } from './export.plan.js';

/** A fixed timestamp makes the archive a function of its content: the link and the repeated request give the same bytes. */
const MTIME = new Date('2020-01-01T00:00:00Z');

/**
 * Streams the archive: each finished image is read from the cache while the zip is written, hashed on
 * the way, and the manifest goes last, once every entry's size and sha256 is known. Memory stays flat
 * whatever the number of images.
 */
export function streamZip(deps: Deps, plan: ExportPlan): Readable {
  const zip = new yazl.ZipFile();
  const manifestEntries: Record<string, unknown>[] = [];
  const output = zip.outputStream as unknown as Readable;
  const fail = (err: Error) => output.destroy(err);

  (async () => {
    const checked = await checkPlan(deps, plan);
    const skipped = [...plan.skipped];
    if (plan.strict) {
      for (const n of checked.nonCompliant) {
        const entry = plan.entries.find((e) => e.image.id === n.image_id)!;
        skipped.push({ product_id: n.product_id, image_id: n.image_id, reason: 'non_compliant', image_review_status: entry.image.reviewStatus });
      }
    }
    for (const { entry, measurements, compliance } of checked.included) {
      const source = await deps.storage.get(entry.cacheKey);
      const hash = createHash('sha256');
      let bytes = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          hash.update(chunk);
          bytes += chunk.length;
          cb(null, chunk);
        },
      });
      const finished = new Promise<void>((resolve, reject) => {
        counted.on('end', resolve);
        counted.on('error', reject);
        source.on('error', reject);
      });
      zip.addReadStream(source.pipe(counted), entry.path, { mtime: MTIME, compress: false });
      await finished;
      manifestEntries.push({
        path: entry.path,
        product_id: entry.productId,
        image_id: entry.image.id,
        image_review_status: entry.image.reviewStatus,
        settings: entry.settings,
        width: measurements.width,
        height: measurements.height,
        bytes,
        sha256: hash.digest('hex'),
        compliance,
      });
    }
    const manifest = Buffer.from(
      JSON.stringify(
        {
          object: 'export_manifest',
          products: plan.productIds.length,
          preset: plan.preset,
          strict: plan.strict,
          entries: manifestEntries,
          non_compliant: checked.nonCompliant,
          skipped,
          note: 'Finished images only; the 3D model is never included.',
        },
        null,
        2,
      ),
    );
    zip.addBuffer(manifest, 'manifest.json', { mtime: MTIME });
    zip.end();
  })().catch(fail);

  return output;
}
