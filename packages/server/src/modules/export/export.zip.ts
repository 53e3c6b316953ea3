import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import yazl from 'yazl';
import type { Deps } from '../../deps.js';
import { DEFAULT_SIZE } from '@plinth/media';
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
    for (const entry of plan.entries) {
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
        width: DEFAULT_SIZE,
        height: DEFAULT_SIZE,
        bytes,
        sha256: hash.digest('hex'),
      });
    }
    const manifest = Buffer.from(
      JSON.stringify(
        {
          object: 'export_manifest',
          products: plan.productIds.length,
          entries: manifestEntries,
          skipped: plan.skipped,
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
