import type { Pricing } from '../../config.js';
import type { Operation } from './quote-token.js';
import { PRIOR_COSTS, type StepCosts } from './step-costs.js';

export interface CreateInput {
  image_urls?: string[];
  image_paths?: string[];
  video_url?: string;
  source_url?: string;
  title?: string;
  custom_id?: string;
  tags?: string[];
  generate_model: boolean;
  capture?: { kind: 'auto' | 'turntable' | 'walkaround'; azimuths_deg?: number[]; elevation_deg?: number };
  dimensions?: { height?: number; width?: number; depth?: number };
}

/**
 * Seconds a model takes: its steps' measured costs (see step-costs.ts), per photo for finding the
 * cameras, for stereo and for the held-out check, per job for the rest. The turntable path skips the
 * cameras and stereo.
 */
export function generationSeconds(views: number, capture: CreateInput['capture'], costs: StepCosts = PRIOR_COSTS): number {
  const posed = (capture?.kind ?? 'auto') !== 'turntable';
  const perView = (posed ? costs.finding_cameras + costs.matching : 0) + costs.checking;
  return costs.fetching + perView * views + costs.carving + costs.texturing + costs.storing_model;
}

/** Frames a video gives (video-frames.ts in the media engine): up to 24 for a turntable, up to 60 for a walk-around. */
const videoFrames = (capture: CreateInput['capture']) => ((capture?.kind ?? 'auto') === 'turntable' ? 24 : 60);
/** Photos a product page is assumed to show. */
const PAGE_PHOTOS = 8;

export interface Price {
  credits: number;
  estimatedSeconds: number;
}

/**
 * The price of an operation from the one pricing table. The credits are deterministic (a commit
 * recomputes them); the seconds follow the step costs measured on this installation.
 */
export function priceOf(op: Operation, input: CreateInput | Record<string, unknown>, p: Pricing, costs: StepCosts = PRIOR_COSTS): Price {
  if (op === 'order_model') {
    const order = input as { views?: number; capture?: CreateInput['capture'] };
    return { credits: p.modelGeneration, estimatedSeconds: Math.round(generationSeconds(order.views ?? 24, order.capture, costs)) };
  }
  if (op === 'order_renders') return { credits: p.renders, estimatedSeconds: 40 };
  const i = input as CreateInput;
  let credits = 0;
  let seconds = 0;
  const photos = i.image_urls ?? i.image_paths;
  const views = photos ? photos.length : i.video_url ? videoFrames(i.capture) : PAGE_PHOTOS;
  // Fetching and decoding is a few seconds whatever the source; every photo or frame is then cut out.
  if (photos) {
    credits += views * p.image;
    seconds += 5;
  } else if (i.video_url) {
    credits += p.video;
    seconds += 30;
  } else if (i.source_url) {
    credits += p.sourcePage;
    seconds += 15;
  }
  seconds += costs.cutting_out * views;
  if (i.generate_model) {
    credits += p.modelGeneration;
    seconds += generationSeconds(views, i.capture, costs);
  }
  return { credits, estimatedSeconds: Math.round(seconds) };
}
