import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Mat3, PosedCamera, Vec3 } from './camera.js';
import { mul3, rotationFromQuaternion } from './linear-algebra.js';

/**
 * The real photo sets live beside the repository, never in it: `../shared/data/captures` from the repository
 * root (or PLINTH_CAPTURES_DIR). Null when absent, so tests can say they skipped.
 */
export function capturesDir(): string | null {
  const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
  const dir = process.env.PLINTH_CAPTURES_DIR ?? join(root, '..', 'shared', 'data', 'captures');
  return existsSync(join(dir, 'temple', 'templeSR_par.txt')) ? dir : null;
}

/** The temple's calibrated cameras (Middlebury format: name, K, R, t per line), by photo order. */
export function templeCameras(dir: string): { names: string[]; cameras: PosedCamera[] } {
  const lines = readFileSync(join(dir, 'temple', 'templeSR_par.txt'), 'utf8').trim().split('\n').slice(1);
  const names: string[] = [];
  const cameras = lines.map((line, view) => {
    const [name, ...rest] = line.trim().split(/\s+/);
    const n = rest.map(Number);
    names.push(name);
    return {
      view,
      width: 640,
      height: 480,
      fx: n[0],
      fy: n[4],
      cx: n[2],
      cy: n[5],
      k1: 0,
      k2: 0,
      rotation: n.slice(9, 18) as Mat3,
      translation: n.slice(18, 21) as Vec3,
    };
  });
  return { names, cameras };
}

/**
 * The same camera with its principal point at the photo's centre, where COLMAP's camera models keep it (the point is
 * not refined): turned by the small angle between the ray through the true principal point and the ray through the
 * centre, so every point near the axis projects where it did. The temple's calibrated principal point is 18 px left
 * of the centre and 7 px below it, about 0.7° at its focal length: against the raw calibration a perfect recovery
 * would show that much rotation error, turned the other way in a portrait photo.
 */
export function withCentredPrincipalPoint(cam: PosedCamera): PosedCamera {
  const ray = [(cam.width / 2 - cam.cx) / cam.fx, (cam.height / 2 - cam.cy) / cam.fy, 1];
  const [x, y, z] = ray.map((v) => v / Math.hypot(...ray));
  // The shortest turn taking that ray onto the optical axis: the quaternion (1 + u·ẑ, u × ẑ), normalised.
  const q = [1 + z, y, -x, 0];
  const turn = rotationFromQuaternion(q.map((v) => v / Math.hypot(...q)));
  const t = cam.translation;
  return {
    ...cam,
    cx: cam.width / 2,
    cy: cam.height / 2,
    rotation: mul3(turn, cam.rotation) as Mat3,
    translation: [0, 1, 2].map((r) => turn[r * 3] * t[0] + turn[r * 3 + 1] * t[1] + turn[r * 3 + 2] * t[2]) as Vec3,
  };
}

/** The temple stands on black cloth: a brightness threshold is a fair cut-out for it. */
export async function templeMask(png: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const mask = Buffer.alloc(info.width * info.height);
  for (let i = 0; i < mask.length; i++) {
    const [r, g, b] = [data[i * 3], data[i * 3 + 1], data[i * 3 + 2]];
    mask[i] = Math.max(r, g, b) > 70 && r > b + 15 ? 255 : 0;
  }
  return sharp(mask, { raw: { width: info.width, height: info.height, channels: 1 } }).median(5).png().toBuffer();
}
