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
}

export interface Price {
  credits: number;
  estimatedSeconds: number;
}

/** The price of an operation from the one pricing table. Deterministic: a commit recomputes it. */
export function priceOf(op: Operation, input: CreateInput | Record<string, unknown>, p: Pricing): Price {
  if (op === 'order_model') return { credits: p.modelGeneration, estimatedSeconds: 90 };
  if (op === 'order_renders') return { credits: p.renders, estimatedSeconds: 40 };
  const i = input as CreateInput;
  let credits = 0;
  let seconds = 0;
  if (i.image_urls || i.image_paths) {
    const n = (i.image_urls ?? i.image_paths ?? []).length;
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
    seconds += 90;
  }
  return { credits, estimatedSeconds: seconds };
}
