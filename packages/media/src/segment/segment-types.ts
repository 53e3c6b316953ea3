/** What every image says about how its cut-out went (the `cutout` field of an image in the API). */
export type CutoutStatus = 'ok' | 'uncertain' | 'none';
export type CutoutMethod = 'alpha' | 'rendered' | 'isnet' | 'classical';

export interface CutoutInfo {
  status: CutoutStatus;
  method: CutoutMethod;
  /** share of the frame that is product, 0..1 */
  coverage: number;
  /** how sure the segmenter is of its own mask, 0..1 */
  confidence: number;
}

/** Interleaved 8-bit sRGB, `width*height*3` bytes. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * A segmenter's raw answer at its own working resolution: probability of "product" per pixel of a
 * downscaled copy of the image, plus how much the segmenter itself trusts it.
 */
export interface Probability {
  prob: Float32Array;
  width: number;
  height: number;
  /** the image at the same working resolution, used as the guide when the edges are upsampled */
  guide: RgbImage;
  /** 0..1, the segmenter's own trust before the mask's shape is judged */
  trust: number;
  /** the segmenter found no backdrop or saliency at all: the answer is "nothing" whatever the mask looks like */
  nothing?: boolean;
}

export interface Segmenter {
  readonly name: 'isnet' | 'classical';
  /** changes whenever the masks it produces can change: part of the cache key */
  readonly version: string;
  /** what the health endpoint reports: a model name, or null for the classical segmenter */
  readonly model: string | null;
  probability(image: RgbImage): Promise<Probability>;
}

export interface SegmentResult {
  /** `width*height` bytes of soft alpha at the image's full resolution: 255 = product */
  alpha: Uint8Array;
  width: number;
  height: number;
  cutout: CutoutInfo;
}
