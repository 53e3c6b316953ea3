import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMediaError, mapLimit } from '@plinth/media';
import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import { FetchError } from '../../platform/fetch/types.js';
import { requireTool } from '../../platform/tools.js';
import { handleJob, type JobFailure } from '../../platform/jobs/define.js';
import { recordStepDurations, StepTimer } from '../quotes/index.js';
import { imagesFailed, imagesIngested, modelFailed, modelReplacementFailed, reportProgress, titleFound } from '../products/index.js';
import { addImages, loadProduct } from '../products/index.js';
import type { ImageOrigin, ProductRecord } from '../products/index.js';
import { failedImage, storeImageFiles, type StoredImage } from './ingest.store.js';
import { uploadStorageKeys } from '../uploads/index.js';
import { InputRejected } from './input-rejected.js';
import { failureProblem, permanentIngestFailure, problemOf } from './ingest.problems.js';
import { generateModelJob, ingestImagesJob, ingestModelJob, ingestPageJob, ingestVideoJob, redeliverModelJob, type IngestData } from '../products/index.js';
import { importStillWanted, ingestModel } from './ingest-model.js';
import { redeliverModelHandlers } from './model-redeliver.js';

const PAGE_MAX_BYTES = 5 * 1024 * 1024;
const IN_FLIGHT = 2;

type Source = { origin: ImageOrigin; url: string | null; load: () => Promise<Buffer> };

async function ingestImages(deps: Deps, product: ProductRecord, sources: Source[], data: IngestData) {
  let done = 0;
  // Shared by the worker's media children: a photo already cut out (a retry, another product) is not cut out again.
  const cutoutCacheDir = deps.config.cutoutCacheDir;
  // The cut-out's cost per photo (with its download) feeds later quotes' estimates.
  const timer = new StepTimer(deps.clock);
  timer.enter('cutting_out');
  const images = await mapLimit(sources, IN_FLIGHT, async (s): Promise<StoredImage> => {
    try {
      const processed = await deps.media.run('image.process', { data: await s.load(), options: { segmenter: deps.config.segmenter, cutoutCacheDir } });
      return await storeImageFiles(deps, product, processed, s.origin, s.url);
    } catch (err) {
      if (!isMediaError(err) && !(err instanceof InputRejected) && !(err instanceof FetchError)) throw err;
      return failedImage(s.origin, s.url, problemOf(err));
    } finally {
      await reportProgress(deps, product.id, 10 + (80 * ++done) / sources.length, 'processing_images');
    }
  });
  if (images.some((i) => !i.error)) await recordStepDurations(deps.database.db, timer.finish(), images.length, deps.clock.now().toISOString());
  await finishImages(deps, product, images, data);
}

/** One transaction: the image rows, the product's new state, the next job and the events. */
async function finishImages(deps: Deps, product: ProductRecord, images: StoredImage[], data: IngestData) {
  const at = deps.clock.now().toISOString();
  const good = images.filter((i) => !i.error);
  await inTransaction(deps.database.db, async (trx) => {
    const current = await loadProduct(trx, product.id);
    // Deleted meanwhile, or an earlier attempt already finished: nothing to do.
    if (!current || current.imagesStatus !== 'ingesting') return;
    await addImages(trx, current, images, at);
    if (!good.length) {
      const error = images[0]?.error ?? { code: 'no_product_images', message: 'No usable product image was found.' };
      await imagesFailed(deps, trx, current, error, data.generation_credits);
      return;
    }
    if (!(await imagesIngested(deps, trx, current, good[0].keys!.thumb))) return;
    if (current.generateModel) {
      await deps.jobs.enqueue(trx, generateModelJob, { product_id: product.id, credits: data.generation_credits });
    }
  });
}

const fetchBody = (deps: Deps, url: string, maxBytes?: number) => deps.fetcher.fetch(url, { maxBytes }).then((r) => r.body);

async function handleImages(deps: Deps, product: ProductRecord, data: IngestData) {
  if (product.source.kind === 'image_urls') {
    const sources = product.source.image_urls.map((url): Source => ({ origin: 'fetched', url, load: () => fetchBody(deps, url) }));
    return ingestImages(deps, product, sources, data);
  }
  if (product.source.kind !== 'image_paths') throw new Error(`ingest.images got a ${product.source.kind} product`);
  const byPath = await uploadStorageKeys(deps, product.orgId, product.source.image_paths);
  const sources = product.source.image_paths.map((path): Source => ({
    origin: 'uploaded',
    url: null,
    load: async () => {
      const key = byPath.get(path);
      if (!key) throw new InputRejected('upload_missing', `The upload ${path} no longer exists.`);
      return deps.storage.getBuffer(key);
    },
  }));
  return ingestImages(deps, product, sources, data);
}

async function handlePage(deps: Deps, product: ProductRecord, data: IngestData) {
  if (product.source.kind !== 'source_url') throw new Error(`ingest.page got a ${product.source.kind} product`);
  await reportProgress(deps, product.id, 5, 'fetching_page');
  const page = await deps.fetcher.fetch(product.source.source_url, { maxBytes: PAGE_MAX_BYTES });
  const found = await deps.media.run('page.extract', { html: page.body.toString('utf8'), pageUrl: page.url });
  if (!found.imageUrls.length) throw new InputRejected('no_product_images', 'The page shows no product images (no JSON-LD Product, Open Graph image or large image).');
  if (found.title && !product.title) await titleFound(deps, product.id, found.title);
  const sources = found.imageUrls.map((url): Source => ({ origin: 'fetched', url, load: () => fetchBody(deps, url) }));
  return ingestImages(deps, product, sources, data);
}

async function handleVideo(deps: Deps, product: ProductRecord, data: IngestData) {
  if (product.source.kind !== 'video_url') throw new Error(`ingest.video got a ${product.source.kind} product`);
  await reportProgress(deps, product.id, 5, 'fetching_video');
  const video = await fetchBody(deps, product.source.video_url);
  const dir = await mkdtemp(join(tmpdir(), 'plinth-video-'));
  try {
    const file = join(dir, 'input');
    await writeFile(file, video);
    await reportProgress(deps, product.id, 10, 'extracting_frames');
    const { ffmpeg, ffprobe } = deps.config.tools;
    await requireTool(deps.config.tools, 'ffmpeg');
    // A turntable spin needs 12–24 distinct views; a walk-around (or `auto`) 24–60 overlapping ones for sequential matching.
    const capture = product.source.capture?.kind ?? 'auto';
    const frames = await deps.media.run('video.frames', { file, options: { capture, workDir: dir, tools: { ffmpeg, ffprobe } } });
    const sources = frames.map((frame): Source => ({ origin: 'video_frame', url: null, load: async () => frame }));
    return await ingestImages(deps, product, sources, data);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Ingestion will not run again (bad input, its last attempt failed, or its worker died): the product
 * says why, and the model that was to be built from the images fails too, refunding its credits.
 */
async function failIngestion(deps: Deps, data: IngestData, failure: JobFailure) {
  await inTransaction(deps.database.db, async (trx) => {
    const p = await loadProduct(trx, data.product_id);
    if (p) await imagesFailed(deps, trx, p, failureProblem(failure), data.generation_credits);
  });
}

/** Runs an ingestion job while its product still waits for it. */
function ingestHandlers(handler: (deps: Deps, product: ProductRecord, data: IngestData) => Promise<void>) {
  return {
    permanent: permanentIngestFailure,
    handle: async (deps: Deps, data: IngestData) => {
      const product = await loadProduct(deps.database.db, data.product_id);
      if (product?.imagesStatus === 'ingesting') await handler(deps, product, data);
    },
    onFailed: failIngestion,
  };
}

const ingestModelHandlers = {
  permanent: permanentIngestFailure,
  handle: async (deps: Deps, data: Static<typeof ingestModelJob.payload>) => {
    const product = await loadProduct(deps.database.db, data.product_id);
    if (product && importStillWanted(product, data)) await ingestModel(deps, product, data);
  },
  onFailed: async (deps: Deps, data: Static<typeof ingestModelJob.payload>, failure: JobFailure) => {
    await inTransaction(deps.database.db, async (trx) => {
      const p = await loadProduct(trx, data.product_id);
      if (!p || !importStillWanted(p, data)) return;
      if (data.replaces === null) await modelFailed(deps, trx, p, failureProblem(failure), 0);
      else await modelReplacementFailed(deps, trx, p, failureProblem(failure));
    });
  },
};

/** The ingestion jobs' handlers, defined in ingest.job-defs.ts. */
export function registerIngestJobs(deps: Deps) {
  deps.jobs.register(handleJob(ingestImagesJob, ingestHandlers(handleImages)), deps);
  deps.jobs.register(handleJob(ingestPageJob, ingestHandlers(handlePage)), deps);
  deps.jobs.register(handleJob(ingestVideoJob, ingestHandlers(handleVideo)), deps);
  deps.jobs.register(handleJob(ingestModelJob, ingestModelHandlers), deps);
  deps.jobs.register(handleJob(redeliverModelJob, redeliverModelHandlers), deps);
}
