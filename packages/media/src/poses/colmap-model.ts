import { MediaError } from '../errors.js';
import { quaternionToMatrix, type PosedCamera } from './camera.js';

// Reads the text form of a COLMAP sparse model (cameras.txt, images.txt, as written by `model_converter
// --output_type TXT`). Points are not needed: carving uses the silhouettes, not the sparse cloud.

/** A COLMAP camera: the intrinsics part of a posed camera. */
type Intrinsics = Pick<PosedCamera, 'width' | 'height' | 'fx' | 'fy' | 'cx' | 'cy' | 'k1' | 'k2'>;

function dataLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

function intrinsicsFor(model: string, width: number, height: number, p: number[]): Intrinsics {
  const base = { width, height };
  switch (model) {
    case 'SIMPLE_PINHOLE':
      return { ...base, fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: 0, k2: 0 };
    case 'PINHOLE':
      return { ...base, fx: p[0], fy: p[1], cx: p[2], cy: p[3], k1: 0, k2: 0 };
    case 'SIMPLE_RADIAL':
      return { ...base, fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: p[3], k2: 0 };
    case 'RADIAL':
      return { ...base, fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: p[3], k2: p[4] };
    // Tangential terms are tiny for phone lenses and do not move a silhouette by a voxel.
    case 'OPENCV':
    case 'FULL_OPENCV':
      return { ...base, fx: p[0], fy: p[1], cx: p[2], cy: p[3], k1: p[4], k2: p[5] };
    default:
      throw new MediaError('tool_failed', `COLMAP camera model ${model} is not supported`, { model });
  }
}

export function parseCamerasTxt(text: string): Map<number, Intrinsics> {
  const cameras = new Map<number, Intrinsics>();
  for (const line of dataLines(text)) {
    const [id, model, width, height, ...params] = line.trim().split(/\s+/);
    const numbers = params.map(Number);
    if (!numbers.every(Number.isFinite)) throw new MediaError('tool_failed', 'COLMAP wrote an unreadable camera', { line });
    cameras.set(Number(id), intrinsicsFor(model, Number(width), Number(height), numbers));
  }
  return cameras;
}

/**
 * Registered images with their cameras. `viewOf` maps the file name COLMAP saw back to the caller's photo
 * index; names it does not know are skipped.
 */
export function parseColmapText(camerasTxt: string, imagesTxt: string, viewOf: (name: string) => number | undefined): PosedCamera[] {
  const intrinsics = parseCamerasTxt(camerasTxt);
  // images.txt has two lines per image: the pose, then its 2-D points (possibly empty, so keep blank lines).
  const lines = imagesTxt.split('\n').filter((line) => !line.startsWith('#'));
  const out: PosedCamera[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fields = lines[i].trim().split(/\s+/);
    if (fields.length < 10) continue;
    const [, qw, qx, qy, qz, tx, ty, tz, cameraId] = fields.slice(0, 9).map(Number);
    const name = fields.slice(9).join(' ');
    i++; // skip the points line
    const view = viewOf(name);
    const k = intrinsics.get(cameraId);
    if (view === undefined || !k) continue;
    out.push({ view, ...k, rotation: quaternionToMatrix(qw, qx, qy, qz), translation: [tx, ty, tz] });
  }
  return out.sort((a, b) => a.view - b.view);
}

/** The sparse points' positions (x, y, z per point), from points3D.txt: the floor around a product shows there. */
export function parsePointsTxt(text: string): Float32Array {
  const lines = dataLines(text);
  const out = new Float32Array(lines.length * 3);
  let n = 0;
  for (const line of lines) {
    const f = line.trim().split(/\s+/);
    out[n++] = Number(f[1]);
    out[n++] = Number(f[2]);
    out[n++] = Number(f[3]);
  }
  return out.subarray(0, n);
}
