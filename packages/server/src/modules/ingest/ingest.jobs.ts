import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import { FetchError } from '../../platform/fetch/types.js';
import type { Job } from '../../platform/jobs/types.js';
import { emitProductEvent } from '../products/products.events.js';
import { GENERATE_QUEUE } from '../products/order.service.js';
import { INGEST_QUEUES, INGEST_RETRIES } from '../products/ingest-queues.js';
import { loadProduct, updateProductRow } from '../products/products.repo.js';
import { PURGE_QUEUE } from '../products/products.service.js';
import type { ImageOrigin, ProblemInfo, ProductRecord } from '../products/products.types.js';
import { processImage } from './image-pipeline.js';
import { failedImage, failModel, insertImageRows, productPrefix, reportProgress, storeImageFiles, type StoredImage } from './ingest.store.js';
import { InputRejected } from './input-rejected.js';
import { ingestModel } from './ingest-model.js';
import { extractProduct } from './page-extract.js';
import { extractFrames } from './video-frames.js';

interface IngestData {
  product_id: string;
  generation_credits?: number;
}

const PAGE_MAX_BYTES = 5 * 1024 * 1024;
const IN_FLIGHT = 2;

export function problemOf(err: unknown): ProblemInfo {
  if (err instanceof InputRejected) return { code: err.reason, message: err.message };
  if (err instanceof FetchError) return { code: `fetch_${err.code}`, message: err.message };
  return { code: 'internal_error', message: 'Processing failed unexpectedly.' };
}

/** Two at a time: sharp's threads and the network are both kept busy without piling up memory. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

type Source = { origin: ImageOrigin; url: string | null; load: () => Promise<Buffer> };

async function ingestImages(deps: Deps, product: ProductRecord, sources: Source[], data: IngestData) {
  let done = 0;
  const images = await mapLimited(sources, IN_FLIGHT, async (s): Promise<StoredImage> => {
    try {
      const processed = await processImage(await s.load());
      return await storeImageFiles(deps, product, processed, s.origin, s.url);
    } catch (err) {
      if (!(err instanceof InputRejected) && !(err instanceof FetchError)) throw err;
      return failedImage(s.origin, s.url, problemOf(err));
    } finally {
      await reportProgress(deps, product.id, 10 + (80 * ++done) / sources.length, 'processing_images');
    }
  });
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
    await insertImageRows(trx, current, images, current.images.length, at);
    if (!good.length) {
      const error = images[0]?.error ?? { code: 'no_product_images', message: 'No usable product image was found.' };
      await updateProductRow(trx, product.id, { images_status: 'failed', analysis: 'failed', error: JSON.stringify(error), step: 'failed', progress: null, updated_at: at });
      if (current.generateModel) await failModel(deps, trx, current, { code: 'no_usable_images', message: 'No usable image to build a model from.' }, data.generation_credits ?? 0, at);
      return;
    }
    await updateProductRow(trx, product.id, {
      images_status: 'ready',
      analysis: 'done',
      thumbnail_key: current.thumbnailKey ?? good[0].keys!.thumb,
      progress: current.generateModel ? 0 : 100,
      step: current.generateModel ? 'queued_for_generation' : 'done',
      error: null,
      updated_at: at,
    });
    if (current.generateModel) {
      await deps.jobs.enqueue(trx, GENERATE_QUEUE, { product_id: product.id, credits: data.generation_credits ?? 0 }, { retryLimit: 1 });
    }
    await emitProductEvent(trx, deps.storage, 'product.images.ready', product.id, at);
  });
}

const fetchBody = (deps: Deps, url: string, maxBytes?: number) => deps.fetcher.fetch(url, { maxBytes }).then((r) => r.body);

async function handleImages(deps: Deps, product: ProductRecord, data: IngestData) {
  if (product.source.kind === 'image_urls') {
    const sources = product.source.image_urls.map((url): Source => ({ origin: 'fetched', url, load: () => fetchBody(deps, url) }));
    return ingestImages(deps, product, sources, data);
  }
  if (product.source.kind !== 'image_paths') throw new Error(`ingest.images got a ${product.source.kind} product`);
  const uploads = await deps.database.db.selectFrom('uploads').select(['path', 'storage_key']).where('org_id', '=', product.orgId).where('path', 'in', product.source.image_paths).execute();
  const byPath = new Map(uploads.map((u) => [u.path, u.storage_key]));
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
  const found = extractProduct(page.body.toString('utf8'), page.url);
  if (!found.imageUrls.length) throw new InputRejected('no_product_images', 'The page shows no product images (no JSON-LD Product, Open Graph image or large image).');
  if (found.title && !product.title) {
    await updateProductRow(deps.database.db, product.id, { title: found.title.slice(0, 500), updated_at: deps.clock.now().toISOString() });
  }
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
    const frames = await extractFrames(file, { workDir: dir });
    const sources = frames.map((frame): Source => ({ origin: 'video_frame', url: null, load: async () => frame }));
    return await ingestImages(deps, product, sources, data);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A permanent failure (bad input, or the last attempt) ends the product's work with a readable reason. */
async function failIngestion(deps: Deps, productId: string, error: ProblemInfo, data: IngestData) {
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.database.db, async (trx) => {
    const p = await loadProduct(trx, productId);
    if (!p) return;
    if (p.source.kind === 'model_url') {
      if (p.modelStatus !== 'ready' && p.modelStatus !== 'failed') await failModel(deps, trx, p, error, 0, at);
      await updateProductRow(trx, p.id, { analysis: 'failed', updated_at: at });
      return;
    }
    if (p.imagesStatus !== 'ingesting') return;
    await updateProductRow(trx, p.id, { images_status: 'failed', analysis: 'failed', error: JSON.stringify(error), step: 'failed', progress: null, updated_at: at });
    if (p.generateModel && p.modelStatus === 'queued') await failModel(deps, trx, p, { code: 'no_usable_images', message: error.message }, data.generation_credits ?? 0, at);
  });
}

type Handler = (deps: Deps, product: ProductRecord, data: IngestData) => Promise<void>;

function ingestJob(deps: Deps, handler: Handler) {
  return async (job: Job) => {
    const data = job.data as unknown as IngestData;
    const product = await loadProduct(deps.database.db, data.product_id);
    if (!product) return;
    try {
      await handler(deps, product, data);
    } catch (err) {
      const permanent = err instanceof InputRejected || (err instanceof FetchError && err.code !== 'timeout' && err.code !== 'network');
      if (permanent || job.attempt > INGEST_RETRIES) {
        if (!permanent) deps.logger.error({ err, productId: product.id }, 'ingestion failed on its last attempt');
        await failIngestion(deps, product.id, problemOf(err), data);
        return;
      }
      throw err;
    }
  };
}

export function registerIngestJobs(deps: Deps) {
  deps.jobs.register(INGEST_QUEUES.image_urls, ingestJob(deps, handleImages));
  deps.jobs.register(INGEST_QUEUES.source_url, ingestJob(deps, handlePage));
  deps.jobs.register(INGEST_QUEUES.video_url, ingestJob(deps, handleVideo));
  deps.jobs.register(INGEST_QUEUES.model_url, ingestJob(deps, (d, p) => ingestModel(d, p)));
  deps.jobs.register(PURGE_QUEUE, async (job) => {
    const { org_id, product_id } = job.data as { org_id: string; product_id: string };
    await deps.storage.deletePrefix(productPrefix({ orgId: org_id, id: product_id }));
  });
}
