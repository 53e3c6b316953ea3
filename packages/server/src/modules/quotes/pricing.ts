import type { Pricing } from '../../config.js';
import type { Operation } from './quote-token.js';

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
 * Seconds a model takes, from step costs measured on a 2-core machine (docs/generation.md): recovering
 * cameras costs about 2 s per photo (feature extraction and matching at 1024 px), carving and texturing
 * about 15 s whatever the count; the turntable path skips the cameras.
 */
export function generationSeconds(views: number, capture: CreateInput['capture']): number {
  const posed = (capture?.kind ?? 'auto') !== 'turntable';
  return 15 + (posed ? 20 + 2 * views : views);
}

export interface Price {
  credits: number;
  estimatedSeconds: number;
}

/** The price of an operation from the one pricing table. Deterministic: a commit recomputes it. */
export function priceOf(op: Operation, input: CreateInput | Record<string, unknown>, p: Pricing): Price {
  if (op === 'order_model') {
    const order = input as { views?: number; capture?: CreateInput['capture'] };
    return { credits: p.modelGeneration, estimatedSeconds: generationSeconds(order.views ?? 24, order.capture) };
  }
  if (op === 'order_renders') return { credits: p.renders, estimatedSeconds: 40 };
  const i = input as CreateInput;
  let credits = 0;
  let seconds = 0;
  // Video keeps up to 60 frames for a walk-around; a product page has a handful of photos.
  const views = i.image_urls || i.image_paths ? (i.image_urls ?? i.image_paths ?? []).length : i.video_url ? 60 : 8;
  if (i.image_urls || i.image_paths) {
    const n = views;
    credits += n * p.image;
    seconds += 5 + 2 * n;
  } else if (i.video_url) {
    credits += p.video;
    seconds += 30;
  } else if (i.source_url) {
    credits += p.sourcePage;
    seconds += 15;
  }
  if (i.generate_model) {
    credits += p.modelGeneration;
    seconds += generationSeconds(views, i.capture);
  }
  return { credits, estimatedSeconds: seconds };
}
