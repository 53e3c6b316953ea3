// Synthetic "product photos" for the export benchmark: a lit studio backdrop,
// one product shape of varying proportions, and sensor-like grain. The grain
// matters: flat SVG renders decode and encode far faster than real photos, and
// would flatter whichever side of the comparison spends more time in codecs.
import sharp from 'sharp';

const PALETTE = ['#c8502a', '#2a6fc8', '#3a9a5b', '#8a3ac8', '#c8a22a', '#404040', '#d04a80', '#2ab0b0'];

/** Deterministic pseudo-random numbers, so every run benchmarks the same pixels. */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** SVG path of the product outline; the photo and the mask share it. */
function productShape(index, side, rand) {
  const cx = side / 2 + (rand() - 0.5) * side * 0.1;
  const w = side * (0.25 + rand() * 0.35);
  const h = side * (0.45 + rand() * 0.35);
  const top = side * 0.12 + rand() * side * 0.1;
  const x0 = cx - w / 2;
  switch (index % 3) {
    case 0: {
      // bottle: neck, shoulders, body
      const neck = w * 0.3;
      return `<path d="M${cx - neck / 2} ${top} h${neck} v${h * 0.2} q${(w - neck) / 2} ${h * 0.05} ${(w - neck) / 2} ${h * 0.15} v${h * 0.65} h${-w} v${-h * 0.65} q0 ${-h * 0.1} ${(w - neck) / 2} ${-h * 0.15} z" />`;
    }
    case 1:
      // box with rounded corners
      return `<rect x="${x0}" y="${top}" width="${w}" height="${h}" rx="${w * 0.08}" />`;
    default:
      // vase: wide belly, narrow foot
      return `<path d="M${x0 + w * 0.2} ${top} h${w * 0.6} c${w * 0.6} ${h * 0.3} ${w * 0.3} ${h * 0.8} ${-w * 0.1} ${h} h${-w * 0.4} c${-w * 0.4} ${-h * 0.2} ${-w * 0.7} ${-h * 0.7} ${-w * 0.1} ${-h} z" />`;
  }
}

/**
 * @returns {Promise<Array<{ original: Buffer, mask: Buffer }>>} JPEG photos
 *   (quality 90) and 8-bit greyscale PNG masks of `side`×`side` px.
 */
export async function makeProductPhotos(count, side) {
  // One grain pattern shared by all photos keeps generation quick; the shapes
  // and colours under it still differ. Added in JS rather than with a sharp
  // blend, which composites in float and took longer than the benchmark.
  const grain = makeGrain(side * side * 3, 6);
  const photos = [];
  for (let i = 0; i < count; i++) {
    const rand = random(1000 + i);
    const shape = productShape(i, side, rand);
    const colour = PALETTE[i % PALETTE.length];
    const photoSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}">
      <defs>
        <radialGradient id="bg" cx="0.5" cy="0.3" r="0.9"><stop offset="0" stop-color="#f2f0ec"/><stop offset="1" stop-color="#a8a49c"/></radialGradient>
        <linearGradient id="lit" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#fff" stop-opacity="0.35"/><stop offset="0.5" stop-color="#fff" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.3"/></linearGradient>
      </defs>
      <rect width="100%" height="100%" fill="url(#bg)"/>
      <g fill="${colour}">${shape}</g>
      <g fill="url(#lit)">${shape}</g>
    </svg>`;
    const maskSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}">
      <rect width="100%" height="100%" fill="#000"/><g fill="#fff">${shape}</g></svg>`;
    const [pixels, mask] = await Promise.all([
      sharp(Buffer.from(photoSvg)).removeAlpha().raw().toBuffer(),
      sharp(Buffer.from(maskSvg)).extractChannel(0).toColourspace('b-w').png().toBuffer(),
    ]);
    const clamped = new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.length);
    for (let p = 0; p < clamped.length; p++) clamped[p] += grain[p];
    const original = await sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    photos.push({ original, mask });
  }
  return photos;
}

/** Roughly Gaussian noise (sum of three uniforms) with the given standard deviation. */
function makeGrain(length, sigma) {
  const rand = random(7);
  const grain = new Int8Array(length);
  const scale = sigma * 2; // three uniforms in [-0.5, 0.5) have a standard deviation of 0.5
  for (let i = 0; i < length; i++) grain[i] = Math.round((rand() + rand() + rand() - 1.5) * scale);
  return grain;
}
