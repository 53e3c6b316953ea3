import sharp from 'sharp';

/**
 * Focus measure shared by the image pipeline and the video frame picker. Both must measure on the
 * same scale (longest side SHARPNESS_SIDE, same luma weights), otherwise their numbers are not
 * comparable: the variance of the Laplacian grows with resolution.
 */
export const SHARPNESS_SIDE = 512;

/**
 * Below this a ~512 px product shot is visibly soft. Absolute thresholds are content-dependent
 * (a small product on a plain backdrop has few edges), so this one is deliberately low and only
 * flags obvious blur; comparing frames of one clip, as the video picker does, is more reliable.
 */
export const BLURRY_THRESHOLD = 20;

/** Rec. 601 luma in 8-bit, from interleaved raw pixels (1–4 channels; alpha is ignored). */
export function lumaFromRaw(data: Uint8Array, width: number, height: number, channels: number): Uint8Array {
  const n = width * height;
  if (channels < 3) {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = data[i * channels];
    return out;
  }
  const out = new Uint8Array(n);
  for (let i = 0, p = 0; i < n; i++, p += channels) {
    out[i] = (data[p] * 299 + data[p + 1] * 587 + data[p + 2] * 114 + 500) / 1000;
  }
  return out;
}

/** Variance of the 4-neighbour Laplacian over the interior pixels. */
export function laplacianVariance(grey: Uint8Array, width: number, height: number): number {
  if (width < 3 || height < 3) return 0;
  let sum = 0;
  let sumSq = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y++) {
    const row = y * width;
    for (let x = 1; x < width - 1; x++) {
      const i = row + x;
      const v = grey[i - width] + grey[i + width] + grey[i - 1] + grey[i + 1] - 4 * grey[i];
      sum += v;
      sumSq += v * v;
      count++;
    }
  }
  const mean = sum / count;
  return sumSq / count - mean * mean;
}

/** Decode (first frame), shrink to the shared scale and return its luma plane. */
export async function greyForSharpness(input: Buffer): Promise<{ grey: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(input, { autoOrient: true, failOn: 'error' })
    .resize(SHARPNESS_SIDE, SHARPNESS_SIDE, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { grey: lumaFromRaw(data, info.width, info.height, info.channels), width: info.width, height: info.height };
}

/** Variance of the Laplacian of the image shrunk to SHARPNESS_SIDE; higher = sharper. */
export async function sharpness(input: Buffer): Promise<number> {
  const { grey, width, height } = await greyForSharpness(input);
  return laplacianVariance(grey, width, height);
}

export async function isBlurry(input: Buffer, threshold = BLURRY_THRESHOLD): Promise<boolean> {
  return (await sharpness(input)) < threshold;
}
