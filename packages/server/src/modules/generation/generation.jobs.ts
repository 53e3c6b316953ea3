import type { Deps } from '../../deps.js';
import { inTransaction } from '../../platform/db/index.js';
import { handleJob, type JobFailure } from '../../platform/jobs/define.js';
import { requireTool } from '../../platform/tools.js';
import { storeModel, storedModel } from '../ingest/index.js';
import { storeImageFiles, type StoredImage } from '../ingest/index.js';
import { failureProblem } from '../ingest/index.js';
import { InputRejected } from '../ingest/index.js';
import { imagesFailed, isModelInFlight, modelFailed, modelGenerating, modelReady, rendersReady, reportProgress } from '../products/index.js';
import { addImages, loadProduct } from '../products/index.js';
import { cutoutOf } from '../products/index.js';
import type { ProductRecord } from '../products/index.js';
import type { ModelQualityRecord } from '../products/index.js';
import { createGenerator } from './generation.service.js';
import { generateModelJob, renderImagesJob, type OrderData } from '../products/index.js';
import { recordStepDurations, StepTimer } from '../quotes/index.js';
import { isMediaError, isMediaRefusal, MediaError, type GenerateHints, type Generator, type GeneratorView } from '@plinth/media';

/** What the generation jobs run with: the app's deps and the generator (tests give their own). */
export interface GenerationContext {
  deps: Deps;
  generator: Generator;
}

const permanent = (err: unknown) => isMediaRefusal(err) || err instanceof InputRejected;

function problem(failure: JobFailure) {
  if (failure.kind === 'error' && failure.error instanceof MediaError) return { code: failure.error.reason, message: failure.error.message };
  return failureProblem(failure);
}

/** The generated GLB goes through the same pipeline as an import: normalised, validated, USDZ written. */
const refuseExternal = async (url: string): Promise<Buffer> => {
  throw new InputRejected('external_uri_refused', `a generated model must be self-contained (asked for ${url})`);
};

const photosOf = (product: ProductRecord) => product.images.filter((i) => i.origin !== 'rendered').sort((a, b) => a.position - b.position);

/**
 * The generator counts only the photos it was given; a failure's message also says how many of the product's
 * photos never reached it (rejected, failed, or with no product found by the cut-out), so "2 of 7" reads
 * against the 16 the user sent.
 */
function withLeftOut(err: unknown, product: ProductRecord, given: number): unknown {
  const photos = photosOf(product).length;
  if (!isMediaError(err) || given >= photos) return err;
  const leftOut = photos - given;
  const why = `${leftOut} of the product's ${photos} photos were left out before that (rejected, failed, or no product found by the cut-out).`;
  return new MediaError(err.reason, `${err.message.replace(/\.?$/, '.')} ${why}`, { ...err.details, photos_total: photos, photos_left_out: leftOut });
}

/**
 * The turntable assumption: the product's own photos, in position order, are views at equal azimuth
 * steps. A rejected or failed photo keeps its slot, so dropping it does not bend the other angles.
 */
async function loadViews(deps: Deps, product: ProductRecord): Promise<GeneratorView[]> {
  const shots = photosOf(product);
  const step = 360 / Math.max(1, shots.length);
  const usable = shots
    .map((image, slot) => ({ image, azimuthDeg: slot * step }))
    // A photo whose cut-out found nothing would carve the surroundings: it never feeds generation.
    .filter(({ image: i }) => i.storageKey && i.maskKey && !i.error && i.reviewStatus !== 'rejected' && cutoutOf(i)?.status !== 'none');
  return Promise.all(
    usable.map(async ({ image, azimuthDeg }) => ({
      image: await deps.storage.getBuffer(image.storageKey!),
      mask: await deps.storage.getBuffer(image.maskKey!),
      azimuthDeg,
    })),
  );
}

/**
 * What the product's source says about the capture, as generator hints. `auto` (the default) and
 * `walkaround` recover the cameras with COLMAP, so they need it installed; `turntable` does not.
 */
async function generationHints(deps: Deps, product: ProductRecord): Promise<GenerateHints> {
  const capture = product.source.capture ?? { kind: 'auto' as const };
  const hints: GenerateHints = { triangleBudget: deps.config.generator.triangleBudget, capture: capture.kind };
  if (product.source.dimensions) {
    hints.dimensions = product.source.dimensions;
    if (product.source.dimensions.height) hints.heightMetres = product.source.dimensions.height;
  }
  if (capture.kind === 'turntable') {
    if (capture.azimuths_deg) hints.azimuthsDeg = capture.azimuths_deg;
    if (capture.elevation_deg !== undefined) hints.elevationDeg = capture.elevation_deg;
  } else if (deps.config.generator.kind === 'builtin') {
    hints.colmapPath = await requireTool(deps.config.tools, 'colmap');
    // Frames of one video overlap their neighbours: sequential matching.
    hints.sequence = product.source.kind === 'video_url';
  }
  return hints;
}

/** A hosted generator's model: nothing checked here, its views are the photos sent. */
const externalQuality = (views: number): ModelQualityRecord => ({
  method: 'external',
  pose_source: null,
  views_used: views,
  views_total: views,
  coverage: null,
  heldout_iou: null,
  silhouette_iou: null,
  stereo_coverage: null,
  largest_piece: null,
  scale_source: 'assumed',
});

async function generate(deps: Deps, generator: Generator, product: ProductRecord) {
  if (!(await modelGenerating(deps, deps.database.db, product))) return;
  // Each step's duration feeds the costs later quotes estimate from (modules/quotes/step-costs.ts).
  const timer = new StepTimer(deps.clock);
  const step = (percent: number, name: string) => {
    timer.enter(name);
    return reportProgress(deps, product.id, percent, name);
  };
  await step(2, 'fetching');
  const views = await loadViews(deps, product);
  if (!views.length) throw new InputRejected('no_usable_views', 'No usable image to build a model from (all were rejected or failed analysis).');
  const hints = await generationHints(deps, product);
  const result = await generator.generate(views, hints, (percent, name) => step(5 + percent * 0.85, name)).catch((err: unknown) => {
    throw withLeftOut(err, product, views.length);
  });
  await step(92, 'storing_model');
  const model = await deps.media.run('model.process_buffer', { data: result.glb, baseUrl: null, options: { caps: deps.config.modelLimits } }, { fetchBytes: refuseExternal });
  const keys = await storeModel(deps, product, model, product.model?.deliveryBudgets);
  await inTransaction(deps.database.db, async (trx) => {
    const current = await loadProduct(trx, product.id);
    if (current?.modelStatus !== 'generating') return;
    await modelReady(deps, trx, current, { ...storedModel(keys, model, current.model, 'generated'), quality: result.quality ?? externalQuality(views.length) });
    // Only a completed generation measures anything (a failed one stopped part-way). Recorded with
    // the model, so a quote asked once the model is ready already counts what it cost.
    await recordStepDurations(trx, timer.finish(), views.length, deps.clock.now().toISOString());
  });
}

async function render(deps: Deps, product: ProductRecord) {
  if (!product.model) throw new InputRejected('no_model', 'The product has no model to render.');
  await reportProgress(deps, product.id, 5, 'rendering');
  // Renders are finished images: drawn from the master, not from a lighter delivery.
  const glb = await deps.storage.getBuffer(product.model.masterKey ?? product.model.glbKey);
  const chromiumPath = await requireTool(deps.config.tools, 'chromium');
  const pngs = await deps.media.run('render.turntable', { glb, options: { chromiumPath, views: deps.config.renders.views, size: deps.config.renders.size } });
  await reportProgress(deps, product.id, 70, 'processing_renders');
  const stored: StoredImage[] = [];
  for (const png of pngs) stored.push(await storeImageFiles(deps, product, await deps.media.run('image.process', { data: png, options: { rendered: true } }), 'rendered', null));
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.database.db, async (trx) => {
    const current = await loadProduct(trx, product.id);
    if (!current || current.imagesStatus !== 'ordered') return;
    await addImages(trx, current, stored, at);
    await rendersReady(deps, trx, current, stored[0]?.keys?.thumb ?? null);
  });
}

/** Runs `generate.model` (generation.job-defs.ts). */
const generateModelHandlers = {
  permanent,
  handle: async ({ deps, generator }: GenerationContext, data: OrderData) => {
    const product = await loadProduct(deps.database.db, data.product_id);
    if (product && isModelInFlight(product)) await generate(deps, generator, product);
  },
  onFailed: async ({ deps }: GenerationContext, data: OrderData, failure: JobFailure) => {
    await inTransaction(deps.database.db, async (trx) => {
      const p = await loadProduct(trx, data.product_id);
      if (p) await modelFailed(deps, trx, p, problem(failure), data.credits);
    });
  },
};

/** Runs `render.images` (generation.job-defs.ts). */
const renderImagesHandlers = {
  permanent,
  handle: async ({ deps }: GenerationContext, data: OrderData) => {
    const product = await loadProduct(deps.database.db, data.product_id);
    if (product?.imagesStatus === 'ordered') await render(deps, product);
  },
  onFailed: async ({ deps }: GenerationContext, data: OrderData, failure: JobFailure) => {
    await inTransaction(deps.database.db, async (trx) => {
      const p = await loadProduct(trx, data.product_id);
      if (p) await imagesFailed(deps, trx, p, problem(failure), data.credits);
    });
  },
};

export function registerGenerationJobs(deps: Deps, generator: Generator = createGenerator(deps.config, deps.fetcher, deps.media)) {
  deps.jobs.register(handleJob(generateModelJob, generateModelHandlers), { deps, generator });
  deps.jobs.register(handleJob(renderImagesJob, renderImagesHandlers), { deps, generator });
}
