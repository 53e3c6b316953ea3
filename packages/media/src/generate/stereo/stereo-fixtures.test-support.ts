import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { CameraRecovery, Mat3, PosedCamera, Vec3 } from '../../poses/camera.js';
import { CHROMIUM_ARGS } from '../../render/renders.js';
import type { TriangleMesh } from '../marching-cubes.js';
import { handheldCameras, type FixtureCamera, type HandheldPath } from '../posed-fixtures.test-support.js';
import { rasterDepth } from './hull-depth.js';

// Concave products with known geometry for the stereo tests: a mug with a handle, a bowl, a chair, each
// painted with random blobs (or left plain: the textureless case) on a blobbed table, photographed by hand
// and drawn by three.js in headless Chromium. Each photo comes with its exact mask, its true camera (in
// COLMAP's convention, metres, y up, the table at y = 0) and the product's true triangles, so a test can
// score a model against the real surface rather than against another reconstruction.

export type ConcaveProduct = 'mug' | 'bowl' | 'chair';

export interface ConcaveCapture {
  shots: { image: Buffer; mask: Buffer }[];
  cameras: PosedCamera[];
  /** The product's surface, world frame (metres, y up, table at y = 0). */
  truth: TriangleMesh;
}

const ORIGIN = 'http://plinth.fixture';
const threeRoot = path.resolve(path.dirname(createRequire(import.meta.url).resolve('three')), '..');

const PAGE = String.raw`<!doctype html><script type="importmap">{"imports":{"three":"/three/build/three.module.js"}}</script>
<script type="module">
import * as THREE from 'three';
let seed = 11;
const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
function blobs(size, n, light) {
  const c = document.createElement('canvas');
  c.width = c.height = size;
  const g = c.getContext('2d');
  g.fillStyle = light ? '#d8d0c0' : '#6a5a4a';
  g.fillRect(0, 0, size, size);
  for (let i = 0; i < n; i++) {
    g.fillStyle = 'hsl(' + Math.floor(rnd() * 360) + ',' + Math.floor(40 + rnd() * 60) + '%,' + Math.floor(light ? 20 + rnd() * 60 : 25 + rnd() * 55) + '%)';
    g.beginPath();
    g.arc(rnd() * size, rnd() * size, 2 + rnd() * size / 40, 0, Math.PI * 2);
    g.fill();
  }
  const t = new THREE.CanvasTexture(c);
  t.colorSpace = THREE.SRGBColorSpace;
  t.wrapS = t.wrapT = THREE.RepeatWrapping;
  return t;
}
function lathe(profile, material) {
  return new THREE.Mesh(new THREE.LatheGeometry(profile.map(([r, y]) => new THREE.Vector2(r, y)), 96), material);
}
function box(w, h, d, x, y, z, material) {
  const m = new THREE.Mesh(new THREE.BoxGeometry(w, h, d), material);
  m.position.set(x, y, z);
  return m;
}
// Closed shells (outer wall, rim, inner wall, inner floor) so the true surface is watertight.
function product(kind, plain) {
  const paint = () => plain ? new THREE.MeshStandardMaterial({ color: 0xe8e6e2, roughness: 0.6 }) : new THREE.MeshStandardMaterial({ map: blobs(1024, 1500, false), roughness: 0.8, side: THREE.DoubleSide });
  const group = new THREE.Group();
  if (kind === 'mug') {
    group.add(lathe([[0, 0], [0.04, 0], [0.04, 0.09], [0.036, 0.09], [0.036, 0.006], [0, 0.006]], paint()));
    const handle = new THREE.Mesh(new THREE.TorusGeometry(0.024, 0.006, 16, 48, Math.PI), paint());
    handle.rotation.z = -Math.PI / 2;
    handle.position.set(0.038, 0.045, 0);
    group.add(handle);
  } else if (kind === 'bowl') {
    const outer = [], inner = [];
    for (let i = 0; i <= 16; i++) {
      const a = (i / 16) * Math.PI / 2;
      outer.push([0.03 + 0.045 * Math.sin(a), 0.05 - 0.05 * Math.cos(a)]);
      inner.push([0.03 + 0.041 * Math.sin(a), 0.05 - 0.046 * Math.cos(a)]);
    }
    group.add(lathe([[0, 0], ...outer, ...inner.reverse(), [0, 0.004]], paint()));
  } else {
    const m = paint();
    for (const [x, z] of [[-0.04, -0.035], [0.04, -0.035], [-0.04, 0.035], [0.04, 0.035]]) group.add(box(0.01, 0.06, 0.01, x, 0.03, z, m));
    group.add(box(0.1, 0.012, 0.09, 0, 0.066, 0, m));
    for (const x of [-0.04, 0.04]) group.add(box(0.01, 0.07, 0.01, x, 0.107, -0.04, m));
    group.add(box(0.1, 0.03, 0.01, 0, 0.125, -0.04, m));
  }
  return group;
}
window.shoot = async ({ width, height, cameras, kind, plain }) => {
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(width, height, false);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.5);
  sun.position.set(0.3, 1, 0.4);
  scene.add(sun);
  const item = product(kind, plain);
  scene.add(item);
  const table = new THREE.Mesh(new THREE.PlaneGeometry(1.2, 1.2), new THREE.MeshStandardMaterial({ map: blobs(2048, 5000, true), roughness: 0.9 }));
  table.rotation.x = -Math.PI / 2;
  scene.add(table);
  const painted = item.children.map((m) => [m, m.material]);
  const white = new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });
  const out = [];
  for (const c of cameras) {
    const cam = new THREE.PerspectiveCamera(c.fovDeg, width / height, 0.01, 10);
    cam.position.set(c.x, c.y, c.z);
    cam.lookAt(c.tx, c.ty, c.tz);
    cam.rotateZ(c.rollDeg * Math.PI / 180);
    cam.updateMatrixWorld();
    scene.background = new THREE.Color(0x9aa4b0);
    table.visible = true;
    for (const [m, paint] of painted) m.material = paint;
    renderer.render(scene, cam);
    const image = renderer.domElement.toDataURL('image/jpeg', 0.92);
    scene.background = new THREE.Color(0x000000);
    table.visible = false;
    for (const [m] of painted) m.material = white;
    renderer.render(scene, cam);
    out.push({ image, mask: renderer.domElement.toDataURL('image/png'), view: Array.from(cam.matrixWorldInverse.elements) });
  }
  item.updateMatrixWorld(true);
  const triangles = [];
  for (const m of item.children) {
    const g = m.geometry.index ? m.geometry.toNonIndexed() : m.geometry;
    const p = g.attributes.position;
    const v = new THREE.Vector3();
    for (let i = 0; i < p.count; i++) {
      v.fromBufferAttribute(p, i).applyMatrix4(m.matrixWorld);
      triangles.push(v.x, v.y, v.z);
    }
  }
  return { shots: out, triangles };
};
window.ready = true;
</script>`;

/** Round a product about 0.1 m across: higher for the bowl, so its inside is in view. */
export const CONCAVE_PATHS: Record<ConcaveProduct, HandheldPath> = {
  mug: { distance: [0.28, 0.34], elevationDeg: [15, 40], aimY: 0.045 },
  bowl: { distance: [0.28, 0.34], elevationDeg: [30, 55], aimY: 0.02 },
  chair: { distance: [0.32, 0.38], elevationDeg: [12, 40], aimY: 0.065 },
};

/** three.js's view matrix (column-major, camera looks down −z, y up) as a COLMAP camera (looks down +z, y down). */
function colmapCamera(view: number[], index: number, width: number, height: number, fovDeg: number): PosedCamera {
  const m = (r: number, c: number) => view[c * 4 + r];
  const rotation = [m(0, 0), m(0, 1), m(0, 2), -m(1, 0), -m(1, 1), -m(1, 2), -m(2, 0), -m(2, 1), -m(2, 2)] as Mat3;
  const translation: Vec3 = [m(0, 3), -m(1, 3), -m(2, 3)];
  const f = height / 2 / Math.tan((fovDeg * Math.PI) / 360);
  return { view: index, width, height, fx: f, fy: f, cx: width / 2, cy: height / 2, k1: 0, k2: 0, rotation, translation };
}

export async function renderConcaveCapture(opts: {
  chromiumPath: string;
  product: ConcaveProduct;
  count: number;
  width: number;
  height: number;
  /** No paint: a plain glazed product stereo cannot match. */
  plain?: boolean;
  seed?: number;
}): Promise<ConcaveCapture> {
  const cameras: FixtureCamera[] = handheldCameras(opts.count, opts.seed ?? 3, CONCAVE_PATHS[opts.product]);
  const browser = await chromium.launch({ executablePath: opts.chromiumPath, args: [...CHROMIUM_ARGS] });
  try {
    const page = await browser.newPage();
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort('blockedbyclient');
      if (url.pathname === '/') return route.fulfill({ contentType: 'text/html', body: PAGE });
      const file = path.resolve(threeRoot, decodeURIComponent(url.pathname.slice('/three/'.length)));
      if (url.pathname.startsWith('/three/') && file.startsWith(threeRoot + path.sep) && file.endsWith('.js')) {
        return route.fulfill({ contentType: 'text/javascript', body: await readFile(file) });
      }
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    const result = await page.evaluate(
      (args) => (window as unknown as { shoot: (a: unknown) => Promise<{ shots: { image: string; mask: string; view: number[] }[]; triangles: number[] }> }).shoot(args),
      { width: opts.width, height: opts.height, cameras, kind: opts.product, plain: opts.plain === true },
    );
    const decode = (url: string) => Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    const positions = Float32Array.from(result.triangles);
    return {
      shots: result.shots.map((s) => ({ image: decode(s.image), mask: decode(s.mask) })),
      cameras: result.shots.map((s, k) => colmapCamera(s.view, k, opts.width, opts.height, cameras[k].fovDeg)),
      truth: { positions, indices: Uint32Array.from({ length: positions.length / 3 }, (_, i) => i) },
    };
  } finally {
    await browser.close();
  }
}

/** The true cameras as a recovery: given poses, the table the floor. */
export function givenRecovery(capture: ConcaveCapture): CameraRecovery {
  return { cameras: capture.cameras, viewsTotal: capture.cameras.length, source: 'given', timings: {}, floor: { normal: [0, 1, 0], offset: 0 } };
}

/** Points spread evenly over a mesh's area (seeded), `count` of them. */
export function samplePoints(mesh: TriangleMesh, count: number, seed = 1): Float32Array {
  const { positions: p, indices } = mesh;
  const areas = new Float64Array(indices.length / 3);
  let total = 0;
  for (let t = 0; t < areas.length; t++) {
    const [a, b, c] = [indices[t * 3] * 3, indices[t * 3 + 1] * 3, indices[t * 3 + 2] * 3];
    const u = [p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]];
    const v = [p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]];
    total += Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]) / 2;
    areas[t] = total;
  }
  let s = seed;
  const rnd = () => ((s = (s * 48271) % 2147483647) / 2147483647);
  const out = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) {
    const target = rnd() * total;
    let lo = 0;
    let hi = areas.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (areas[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    let [r1, r2] = [rnd(), rnd()];
    if (r1 + r2 > 1) [r1, r2] = [1 - r1, 1 - r2];
    const [a, b, c] = [indices[lo * 3] * 3, indices[lo * 3 + 1] * 3, indices[lo * 3 + 2] * 3];
    for (let k = 0; k < 3; k++) out[i * 3 + k] = p[a + k] + r1 * (p[b + k] - p[a + k]) + r2 * (p[c + k] - p[a + k]);
  }
  return out;
}

/** The points some camera sees (nothing of the product in front): the surface a photo can measure. */
export function visiblePoints(points: Float32Array, truth: TriangleMesh, cameras: readonly PosedCamera[], tolerance: number): Float32Array {
  const seen = new Uint8Array(points.length / 3);
  for (const cam of cameras) {
    const depth = rasterDepth(truth, cam, cam.width, cam.height).near;
    for (let i = 0; i < seen.length; i++) {
      if (seen[i]) continue;
      const r = cam.rotation;
      const [x, y, z] = [points[i * 3], points[i * 3 + 1], points[i * 3 + 2]];
      const zc = r[6] * x + r[7] * y + r[8] * z + cam.translation[2];
      const px = Math.floor((cam.fx * (r[0] * x + r[1] * y + r[2] * z + cam.translation[0])) / zc + cam.cx);
      const py = Math.floor((cam.fy * (r[3] * x + r[4] * y + r[5] * z + cam.translation[1])) / zc + cam.cy);
      if (px < 0 || py < 0 || px >= cam.width || py >= cam.height) continue;
      if (zc <= depth[py * cam.width + px] + tolerance) seen[i] = 1;
    }
  }
  const kept: number[] = [];
  for (let i = 0; i < seen.length; i++) if (seen[i]) kept.push(points[i * 3], points[i * 3 + 1], points[i * 3 + 2]);
  return Float32Array.from(kept);
}

/**
 * Chamfer distance (mean of both directions' mean nearest distances) and F-score at `threshold`. With
 * `wholeTruth`, the model's side (precision) is measured against that, the truth's side (recall) against
 * `truth`: a model surface where the true surface is counts as right even where no photo saw it (the
 * underside of a chair's seat, a mug's base on the table), while a surface no photo saw cannot be asked for.
 */
export function compareSurfaces(
  model: Float32Array,
  truth: Float32Array,
  threshold: number,
  wholeTruth: Float32Array = truth,
): { chamfer: number; fscore: number; precision: number; recall: number } {
  const toTruth = nearestDistances(model, wholeTruth);
  const toModel = nearestDistances(truth, model);
  const mean = (d: Float64Array) => d.reduce((s, v) => s + v, 0) / d.length;
  const share = (d: Float64Array) => d.filter((v) => v <= threshold).length / d.length;
  const precision = share(toTruth);
  const recall = share(toModel);
  return { chamfer: (mean(toTruth) + mean(toModel)) / 2, fscore: (2 * precision * recall) / (precision + recall || 1), precision, recall };
}

/** For each point of `from`, the distance to the nearest point of `to` (Infinity beyond 63 cells of 4 mm). */
function nearestDistances(from: Float32Array, to: Float32Array): Float64Array {
  const nearest = nearestPointFinder(to, 0.004, 63);
  const out = new Float64Array(from.length / 3);
  for (let i = 0; i < out.length; i++) out[i] = nearest(from[i * 3], from[i * 3 + 1], from[i * 3 + 2]).distance;
  return out;
}

/**
 * The nearest point of `to` to any point asked, by a uniform grid of `cell`-sized cells searched ring by ring out to
 * `rings` cells: its offset in `to` (-1, at distance Infinity, when none is that near).
 */
export function nearestPointFinder(to: Float32Array, cell: number, rings: number): (x: number, y: number, z: number) => { index: number; distance: number } {
  const grid = new Map<number, number[]>();
  // A number key, not a composed string: exact (under 2^53) while cells stay within ±2^16 of the origin on each
  // axis, 65 m away in 1 mm cells, which a product's model never leaves.
  const key = (x: number, y: number, z: number) => ((x + 65_536) * 131_072 + (y + 65_536)) * 131_072 + (z + 65_536);
  for (let i = 0; i < to.length; i += 3) {
    const k = key(Math.floor(to[i] / cell), Math.floor(to[i + 1] / cell), Math.floor(to[i + 2] / cell));
    const list = grid.get(k);
    if (list) list.push(i);
    else grid.set(k, [i]);
  }
  return (x, y, z) => {
    const [cx, cy, cz] = [Math.floor(x / cell), Math.floor(y / cell), Math.floor(z / cell)];
    let best = Infinity;
    let index = -1;
    // Ring r holds every point nearer than (r - 1) cells that the rings inside it did not: stop once one is.
    for (let r = 0; r <= rings && !(best <= (r - 1) * cell); r++) {
      for (let dz = -r; dz <= r; dz++) {
        for (let dy = -r; dy <= r; dy++) {
          for (let dx = -r; dx <= r; dx++) {
            if (Math.max(Math.abs(dx), Math.abs(dy), Math.abs(dz)) !== r) continue;
            for (const j of grid.get(key(cx + dx, cy + dy, cz + dz)) ?? []) {
              const d = Math.hypot(to[j] - x, to[j + 1] - y, to[j + 2] - z);
              if (d < best) [best, index] = [d, j];
            }
          }
        }
      }
    }
    return { index, distance: best };
  };
}
