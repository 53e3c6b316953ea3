import sharp from 'sharp';
import type { Mat3, PosedCamera, Vec3 } from '../poses/camera.js';
import type { TriangleMesh } from './marching-cubes.js';
import type { PreparedView } from './prepared-view.js';

// A checkered ball photographed from a ring of cameras, drawn analytically (no browser): every photo has its
// own white balance and a light beside the photographer, so the same point of the ball has a different
// colour in each photo, as in a real capture. The cameras and the true surface are known exactly, so a test
// measures the texturing alone.

/** Unit icosphere: `level` subdivisions of the icosahedron (20·4^level triangles), outward winding. */
export function icosphere(level: number): TriangleMesh {
  const t = (1 + Math.sqrt(5)) / 2;
  const points: number[][] = [
    [-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1],
  ].map(unit);
  let faces = [
    [0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8],
    [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1],
  ];
  for (let l = 0; l < level; l++) {
    const middle = new Map<string, number>();
    const mid = (a: number, b: number) => {
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      let m = middle.get(key);
      if (m === undefined) {
        m = points.length;
        points.push(unit(points[a].map((x, k) => x + points[b][k])));
        middle.set(key, m);
      }
      return m;
    };
    faces = faces.flatMap(([a, b, c]) => {
      const [ab, bc, ca] = [mid(a, b), mid(b, c), mid(c, a)];
      return [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]];
    });
  }
  return { positions: Float32Array.from(points.flat()), indices: Uint32Array.from(faces.flat()) };
}

function unit(p: number[]): number[] {
  const n = Math.hypot(p[0], p[1], p[2]);
  return p.map((x) => x / n);
}

/** Checker cells of the ball: 12 round the equator, 6 from pole to pole. */
export function checkerCell(p: ArrayLike<number>): number {
  const lon = Math.atan2(p[0], p[2]);
  const lat = Math.asin(Math.max(-1, Math.min(1, p[1] / Math.hypot(p[0], p[1], p[2]))));
  return Math.floor(((lon + Math.PI) / (2 * Math.PI)) * 12) + 12 * Math.floor(((lat + Math.PI / 2) / Math.PI) * 6);
}

const LIGHT = [200, 170, 130];
const DARK = [80, 100, 140];
/** The true colour of a cell: a checkerboard of two paints. */
export function albedo(cell: number): number[] {
  return (cell % 12) % 2 === Math.floor(cell / 12) % 2 ? LIGHT : DARK;
}

/** A camera at `distance` on a ring at `elevationDeg`, `azimuthDeg` round y, looking at the origin. */
function ringCamera(view: number, azimuthDeg: number, elevationDeg: number, distance: number, size: number): PosedCamera {
  const [az, el] = [(azimuthDeg * Math.PI) / 180, (elevationDeg * Math.PI) / 180];
  const centre: Vec3 = [distance * Math.cos(el) * Math.sin(az), distance * Math.sin(el), distance * Math.cos(el) * Math.cos(az)];
  const forward = unit(centre.map((x) => -x));
  const right = unit([-forward[2], 0, forward[0]]); // forward × up
  const down = [forward[1] * right[2] - forward[2] * right[1], forward[2] * right[0] - forward[0] * right[2], forward[0] * right[1] - forward[1] * right[0]];
  const rotation = [...right, ...down, ...forward] as Mat3;
  const translation = [0, 1, 2].map((r) => -(rotation[r * 3] * centre[0] + rotation[r * 3 + 1] * centre[1] + rotation[r * 3 + 2] * centre[2])) as Vec3;
  return { view, width: size, height: size, fx: size, fy: size, cx: size / 2, cy: size / 2, k1: 0, k2: 0, rotation, translation };
}

export interface BallCapture {
  views: PreparedView[];
  cams: PosedCamera[];
}

/**
 * `count` photos (`size` px square) round the unit ball at 15° elevation. Photo k has white balance gains
 * that vary from photo to photo and is lit by a lamp `lampDeg` round from its camera, so a point's shading
 * depends on which photo it is seen in.
 */
export async function photographBall(count: number, size: number, opts: { whiteBalance: number; lampDeg: number }): Promise<BallCapture> {
  const cams = Array.from({ length: count }, (_, k) => ringCamera(k, (360 * k) / count, 15, 3, size));
  const views = await Promise.all(
    cams.map(async (cam, k) => {
      const balance = [1 + opts.whiteBalance * Math.sin(2.1 * k + 0.5), 1, 1 + opts.whiteBalance * Math.cos(1.7 * k)];
      const lampAz = (((360 * k) / count + opts.lampDeg) * Math.PI) / 180;
      const lamp = unit([Math.sin(lampAz), 0.3, Math.cos(lampAz)]);
      const rgb = Buffer.alloc(size * size * 3, 128);
      const mask = new Uint8Array(size * size);
      const r = cam.rotation;
      const centre = [0, 1, 2].map((c) => -(r[c] * cam.translation[0] + r[3 + c] * cam.translation[1] + r[6 + c] * cam.translation[2]));
      let [x0, y0, x1, y1] = [size, size, 0, 0];
      for (let y = 0; y < size; y++) {
        for (let x = 0; x < size; x++) {
          const d = [(x + 0.5 - cam.cx) / cam.fx, (y + 0.5 - cam.cy) / cam.fy, 1];
          const dir = unit([0, 1, 2].map((c) => r[c] * d[0] + r[3 + c] * d[1] + r[6 + c] * d[2]));
          // The nearer intersection of the ray with the unit sphere.
          const b = centre[0] * dir[0] + centre[1] * dir[1] + centre[2] * dir[2];
          const disc = b * b - (centre[0] ** 2 + centre[1] ** 2 + centre[2] ** 2 - 1);
          if (disc < 0) continue;
          const s = -b - Math.sqrt(disc);
          const p = centre.map((c, i) => c + s * dir[i]);
          const shade = 0.6 + 0.4 * Math.max(0, p[0] * lamp[0] + p[1] * lamp[1] + p[2] * lamp[2]);
          const colour = albedo(checkerCell(p));
          const i = y * size + x;
          for (let c = 0; c < 3; c++) rgb[i * 3 + c] = Math.min(255, Math.round(colour[c] * shade * balance[c]));
          mask[i] = 255;
          [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1)];
        }
      }
      const image = await sharp(rgb, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
      const view: PreparedView = {
        index: k,
        image,
        imageWidth: size,
        imageHeight: size,
        mask,
        maskWidth: size,
        maskHeight: size,
        maskScaleX: 1,
        maskScaleY: 1,
        bbox: { x0, y0, x1, y1 },
        fill: 0.785,
        azimuthDeg: (360 * k) / count,
        elevationDeg: 15,
      };
      return view;
    }),
  );
  return { views, cams };
}
