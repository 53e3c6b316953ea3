import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import type { Job } from '../../platform/jobs/types.js';
import { QUEUES } from '../../queues.js';
import { emitProductEvent } from '../products/products.events.js';
import { processImage } from '../ingest/image-pipeline.js';
import { storeModel, storedModel } from '../ingest/ingest-model.js';
import { failModel, insertImageRows, refundGeneration, reportProgress, storeImageFiles, type StoredImage } from '../ingest/ingest.store.js';
import { problemOf } from '../ingest/ingest.jobs.js';
import { InputRejected } from '../ingest/input-rejected.js';
import { processModelBuffer } from '../ingest/model-pipeline.js';
import { loadProduct, updateProductRow } from '../products/products.repo.js';
import type { ProductRecord } from '../products/products.types.js';
import { createGenerator } from './generation.service.js';
import { GenerationFailed, type Generator, type GeneratorView } from './generator.js';
import { renderTurntable } from './renders.js';

/** Generation and renders get one retry; the second failure is final and refunds. */
const ATTEMPTS = 2;

interface OrderData {
  product_id: string;
  credits?: number;
}

const permanent = (err: unknown) => err instanceof GenerationFailed || err instanceof InputRejected;

function problem(err: unknown) {
  if (err instanceof GenerationFailed) return { code: err.reason, message: err.message };
  return problemOf(err);
}

/** The generated GLB goes through the same pipeline as an import: normalised, validated, USDZ written. */
const refuseExternal = async (url: string): Promise<Buffer> => {
  throw new InputRejected('external_uri_refused', `a generated model must be self-contained (asked for ${url})`);
};

/**
 * The turntable assumption: the product's own photos, in position order, are views at equal azimuth
 * steps. A rejected or failed photo keeps its slot, so dropping it does not bend the other angles.
 */
async function loadViews(deps: Deps, product: ProductRecord): Promise<GeneratorView[]> {
  const shots = product.images.filter((i) => i.origin !== 'rendered').sort((a, b) => a.position - b.position);
  const step = 360 / Math.max(1, shots.length);
  const usable = shots
    .map((image, slot) => ({ image, azimuthDeg: slot * step }))
    .filter(({ image: i }) => i.storageKey && i.maskKey && !i.error && i.reviewStatus !== 'rejected');
  return Promise.all(
    usable.map(async ({ image, azimuthDeg }) => ({
      image: await deps.storage.getBuffer(image.storageKey!),
      mask: await deps.storage.getBuffer(image.maskKey!),
      azimuthDeg,
    })),
  );
}

async function generate(deps: Deps, generator: Generator, product: ProductRecord) {
  await updateProductRow(deps.database.db, product.id, { model_status: 'generating', progress: 0, step: 'loading_views', updated_at: deps.clock.now().toISOString() });
  const views = await loadViews(deps, product);
  if (!views.length) throw new GenerationFailed('no_usable_views', 'No usable image to build a model from (all were rejected or failed analysis).');
  const result = await generator.generate(views, { triangleBudget: deps.config.generator.triangleBudget }, (percent, step) =>
    reportProgress(deps, product.id, 5 + percent * 0.85, step),
  );
  await reportProgress(deps, product.id, 92, 'writing_model');
  const model = await processModelBuffer(result.glb, null, refuseExternal);
  const keys = await storeModel(deps, product, model);
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.database.db, async (trx) => {
    const current = await loadProduct(trx, product.id);
    if (!current || current.modelStatus !== 'generating') return;
    await updateProductRow(trx, product.id, {
      model: JSON.stringify(storedModel(keys, model, current.model, 'generated')),
      model_status: 'ready',
      progress: 100,
      step: 'done',
      error: null,
      updated_at: at,
    });
    await emitProductEvent(trx, deps.storage, 'product.model.ready', product.id, at);
  });
}

async function render(deps: Deps, product: ProductRecord) {
  if (!product.model) throw new InputRejected('no_model', 'The product has no model to render.');
  await reportProgress(deps, product.id, 5, 'rendering');
  const glb = await deps.storage.getBuffer(product.model.glbKey);
  const pngs = await renderTurntable(glb, { chromiumPath: deps.config.chromiumPath, views: deps.config.renders.views, size: deps.config.renders.size });
  await reportProgress(deps, product.id, 70, 'processing_renders');
  const stored: StoredImage[] = [];
  for (const png of pngs) stored.push(await storeImageFiles(deps, product, await processImage(png), 'rendered', null));
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.database.db, async (trx) => {
    const current = await loadProduct(trx, product.id);
    if (!current || current.imagesStatus !== 'ordered') return;
    await insertImageRows(trx, current, stored, current.images.length, at);
    await updateProductRow(trx, product.id, {
      images_status: 'ready',
      // A model-only product's thumbnail is its first render.
      thumbnail_key: current.thumbnailKey ?? stored[0]?.keys?.thumb ?? null,
      progress: 100,
      step: 'done',
      error: null,
      updated_at: at,
    });
    await emitProductEvent(trx, deps.storage, 'product.images.ready', product.id, at);
  });
}

async function failRenders(deps: Deps, productId: string, err: unknown, credits: number) {
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.database.db, async (trx) => {
    const p = await loadProduct(trx, productId);
    if (!p || p.imagesStatus !== 'ordered') return;
    await updateProductRow(trx, productId, { images_status: 'failed', error: JSON.stringify(problem(err)), step: 'failed', progress: null, updated_at: at });
    await refundGeneration(trx, p, credits, at);
  });
}

export function registerGenerationJobs(deps: Deps, generator: Generator = createGenerator(deps.config, deps.fetcher)) {
  deps.jobs.register(QUEUES.generateModel, async (job: Job) => {
    const data = job.data as unknown as OrderData;
    const product = await loadProduct(deps.database.db, data.product_id);
    if (!product || (product.modelStatus !== 'queued' && product.modelStatus !== 'generating')) return;
    try {
      await generate(deps, generator, product);
    } catch (err) {
      if (!permanent(err) && job.attempt < ATTEMPTS) throw err;
      if (!permanent(err)) deps.logger.error({ err, productId: product.id }, 'generation failed on its last attempt');
      await inTransaction(deps.database.db, async (trx) => {
        const current = await loadProduct(trx, product.id);
        if (current && (current.modelStatus === 'queued' || current.modelStatus === 'generating')) {
          await failModel(deps, trx, current, problem(err), data.credits ?? 0, deps.clock.now().toISOString());
        }
      });
    }
  });

  deps.jobs.register(QUEUES.renderImages, async (job: Job) => {
    const data = job.data as unknown as OrderData;
    const product = await loadProduct(deps.database.db, data.product_id);
    if (!product || product.imagesStatus !== 'ordered') return;
    try {
      await render(deps, product);
    } catch (err) {
      if (!permanent(err) && job.attempt < ATTEMPTS) throw err;
      deps.logger.error({ err, productId: product.id }, 'renders failed');
      await failRenders(deps, product.id, err, data.credits ?? 0);
    }
  });
}
