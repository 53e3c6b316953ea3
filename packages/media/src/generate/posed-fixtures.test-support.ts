import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { CameraRecovery } from '../poses/camera.js';
import { CHROMIUM_ARGS } from '../render/renders.js';
import { generatePosedHull, type PosedResult } from './posed-generator.js';
import type { PreparedView } from './prepared-view.js';

// Synthetic captures that behave like a shop's: a textured product on a textured table, photographed by hand
// (each photo at its own distance, height, aim and roll, none of them known to the generator), drawn by
// three.js in headless Chromium. Each photo comes with the exact product mask (a second pass with the table
// hidden), so the test measures posing and carving, not the cut-out.

export interface SyntheticShot {
  image: Buffer;
  mask: Buffer;
}

export interface SyntheticCapture {
  shots: SyntheticShot[];
  /** The product's true size, metres: width (x), height (y), depth (z). */
  size: { width: number; height: number; depth: number };
}

const ORIGIN = 'http://plinth.fixture';
const threeRoot = path.resolve(path.dirname(createRequire(import.meta.url).resolve('three')), '..');

// The product: an oval column (0.07 × 0.06 m, 0.08 m tall) under an oval spire, 0.12 m tall in all, painted
// with random blobs (features for matching), the table with different blobs. It is convex with walls steeper
// than any camera looks down, so its visual hull from 20 or more photos is the product itself to about 2 %: what
// the size checks measure is the carving, not the hull's inherent guesses (a box's corners, a flat top's roof).
const PAGE = String.raw`<!doctype html><script type="importmap">{"imports":{"three":"/three/build/three.module.js"}}</script>
<script type="module">
import * as THREE from 'three';
let seed = 7;
const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
function blobs(size, n, light) {
  const c = document.createElement('canvas');
  c.width = c.height = size;
  const g = c.getContext('2d');
  g.fillStyle = light ? '#d8d0c0' : '#6a5a4a';
  g.fillRect(0, 0, size, size);
  for (let i = 0; i < n; i++) {
    g.fillStyle = 'hsl(' + Math.floor(rnd() * 360) + ',' + Math.floor(40 + rnd() * 60) + '%,' + Math.floor(light ? 20 + rnd() * 60 : 30 + rnd() * 50) + '%)';
    g.beginPath();
    g.arc(rnd() * size, rnd() * size, 2 + rnd() * size / 30, 0, Math.PI * 2);
    g.fill();
  }
  const t = new THREE.CanvasTexture(c);
  t.colorSpace = THREE.SRGBColorSpace;
  return t;
}
// The capture mat as the printed page (white paper, black shapes in mm), a texture at its true size.
function matPage(mat) {
  const c = document.createElement('canvas');
  c.width = Math.round(mat.pageMm.width * mat.pxPerMm);
  c.height = Math.round(mat.pageMm.height * mat.pxPerMm);
  const g = c.getContext('2d');
  g.fillStyle = '#f4f4f2';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#141414';
  for (const r of mat.rects) g.fillRect(r.x * mat.pxPerMm, r.y * mat.pxPerMm, r.w * mat.pxPerMm, r.h * mat.pxPerMm);
  const t = new THREE.CanvasTexture(c);
  t.colorSpace = THREE.SRGBColorSpace;
  t.anisotropy = 8;
  return t;
}
window.shoot = async ({ width, height, cameras, mat, empty }) => {
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(width, height, false);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x9aa4b0);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.5);
  sun.position.set(0.3, 1, 0.4);
  scene.add(sun);
  // Every face its own pattern: a pattern repeated on several faces would match across them and fold the
  // walk onto one side.
  const paint = () => new THREE.MeshStandardMaterial({ map: blobs(512, 400, false), roughness: 0.8 });
  const painted = [];
  const table = new THREE.Group();
  if (mat) {
    // A plain glazed bottle-vase, no texture at all, standing off the mat's centre on a plain table.
    const profile = [[0, 0], [0.03, 0], [0.036, 0.02], [0.038, 0.05], [0.03, 0.085], [0.012, 0.11], [0.011, 0.132], [0.012, 0.14], [0, 0.14]];
    const vase = new THREE.Mesh(new THREE.LatheGeometry(profile.map(([r, y]) => new THREE.Vector2(r, y)), 64), new THREE.MeshStandardMaterial({ color: 0xe6e4e0, roughness: 0.5 }));
    vase.position.set(mat.productAt[0], 0, mat.productAt[1]);
    painted.push([vase, vase.material]);
    scene.add(vase);
    const floor = new THREE.Mesh(new THREE.PlaneGeometry(1.6, 1.6), new THREE.MeshStandardMaterial({ color: 0x8a8078, roughness: 0.9 }));
    floor.rotation.x = -Math.PI / 2;
    floor.position.y = -0.0005;
    const page = new THREE.Mesh(new THREE.PlaneGeometry(mat.pageMm.width / 1000, mat.pageMm.height / 1000), new THREE.MeshStandardMaterial({ map: matPage(mat), roughness: 0.95 }));
    page.rotation.x = -Math.PI / 2;
    page.position.set(mat.pageCentre[0], 0, mat.pageCentre[1]);
    table.add(floor, page);
  } else {
    const columnPaint = new THREE.MeshStandardMaterial({ map: blobs(1024, 1200, false), roughness: 0.8 });
    const spirePaint = paint();
    const column = new THREE.Mesh(new THREE.CylinderGeometry(1, 1, 0.08, 96), columnPaint);
    column.position.set(0, 0.04, 0);
    const spire = new THREE.Mesh(new THREE.CylinderGeometry(0, 1, 0.04, 96), spirePaint);
    spire.position.set(0, 0.1, 0);
    painted.push([column, columnPaint], [spire, spirePaint]);
    const product = new THREE.Group();
    product.add(column, spire);
    for (const part of product.children) part.scale.set(0.035, 1, 0.03);
    // An empty table: the same walk round, with nothing standing on it.
    if (!empty) scene.add(product);
    const blobbed = new THREE.Mesh(new THREE.PlaneGeometry(1.2, 1.2), new THREE.MeshStandardMaterial({ map: blobs(2048, 5000, true), roughness: 0.9 }));
    blobbed.rotation.x = -Math.PI / 2;
    table.add(blobbed);
  }
  scene.add(table);
  const white = new THREE.MeshBasicMaterial({ color: 0xffffff });
  const out = [];
  for (const c of cameras) {
    const cam = new THREE.PerspectiveCamera(c.fovDeg, width / height, 0.01, 10);
    cam.position.set(c.x, c.y, c.z);
    cam.lookAt(c.tx, c.ty, c.tz);
    cam.rotateZ(c.rollDeg * Math.PI / 180);
    scene.background = new THREE.Color(0x9aa4b0);
    table.visible = true;
    for (const [mesh, paint] of painted) mesh.material = paint;
    renderer.render(scene, cam);
    const image = renderer.domElement.toDataURL('image/jpeg', 0.92);
    scene.background = new THREE.Color(0x000000);
    table.visible = false;
    for (const [mesh] of painted) mesh.material = white;
    renderer.render(scene, cam);
    out.push({ image, mask: renderer.domElement.toDataURL('image/png') });
  }
  return out;
};
window.ready = true;
</script>`;

/** Where a hand holds the phone: distance from the aim point (m), elevation (°), aim height (m). */
export interface HandheldPath {
  distance: [number, number];
  elevationDeg: [number, number];
  aimY: number;
}

/** Close round a small product: it fills the frame. */
export const CLOSE_PATH: HandheldPath = { distance: [0.2, 0.26], elevationDeg: [18, 35], aimY: 0.05 };

/** A camera of the fixture: its centre, the point it aims at, its roll about the aim (°), field of view (°). */
export interface FixtureCamera {
  x: number;
  y: number;
  z: number;
  tx: number;
  ty: number;
  tz: number;
  rollDeg: number;
  fovDeg: number;
}

function seeded(seed: number) {
  let s = seed;
  return () => ((s = (s * 48271) % 2147483647) / 2147483647);
}

/** A camera on the path's sphere round the aim point: azimuth and elevation in radians. */
function onPath(path: HandheldPath, azimuth: number, elevation: number, distance: number, aim: [number, number, number], rollDeg: number): FixtureCamera {
  return {
    x: distance * Math.cos(elevation) * Math.sin(azimuth),
    y: path.aimY + 0.01 + distance * Math.sin(elevation),
    z: distance * Math.cos(elevation) * Math.cos(azimuth),
    tx: aim[0],
    ty: path.aimY + aim[1],
    tz: aim[2],
    rollDeg,
    fovDeg: 45,
  };
}

/** A walk round the product: `count` photos with seeded jitter in distance, height, aim, roll and step. */
export function handheldCameras(count: number, seed = 3, path: HandheldPath = CLOSE_PATH): FixtureCamera[] {
  const rnd = seeded(seed);
  return Array.from({ length: count }, (_, i) => {
    const azimuth = ((i + (rnd() - 0.5) * 0.3) / count) * 2 * Math.PI;
    const [e0, e1] = path.elevationDeg;
    const elevation = ((e0 + rnd() * (e1 - e0)) * Math.PI) / 180;
    const distance = path.distance[0] + rnd() * (path.distance[1] - path.distance[0]);
    const aim: [number, number, number] = [(rnd() - 0.5) * 0.02, (rnd() - 0.5) * 0.02, (rnd() - 0.5) * 0.02];
    return onPath(path, azimuth, elevation, distance, aim, (rnd() - 0.5) * 16);
  });
}

/**
 * A phone filmed walking once round the product: `frames` cameras along one smooth path whose distance,
 * elevation and roll drift (slow seeded waves across the path's ranges) with a little per-frame shake of aim
 * and roll, the walking pace itself uneven. `turns` is how far round the walk goes.
 */
export function walkaroundCameras(frames: number, seed = 5, path: HandheldPath = CLOSE_PATH, turns = 1.05): FixtureCamera[] {
  const rnd = seeded(seed);
  // A wave between 0 and 1: two sines of random phase, one and two cycles over the walk.
  const wave = () => {
    const [p, q] = [rnd() * 2 * Math.PI, rnd() * 2 * Math.PI];
    return (t: number) => 0.5 + 0.3 * Math.sin(2 * Math.PI * t + p) + 0.2 * Math.sin(4 * Math.PI * t + q);
  };
  const [distance, elevation, roll, pace] = [wave(), wave(), wave(), wave()];
  const start = rnd() * 2 * Math.PI;
  const [e0, e1] = path.elevationDeg;
  const shake = (size: number) => (rnd() - 0.5) * size;
  // Uneven pace: the azimuth is the normalised running sum of a speed between 0.6 and 1.4.
  const speeds = Array.from({ length: frames }, (_, i) => 0.6 + 0.8 * pace(i / frames));
  const total = speeds.reduce((a, b) => a + b, 0);
  let walked = 0;
  return speeds.map((speed, i) => {
    const t = i / Math.max(1, frames - 1);
    const azimuth = start + (walked / total) * turns * 2 * Math.PI;
    walked += speed;
    return onPath(
      path,
      azimuth,
      ((e0 + elevation(t) * (e1 - e0)) * Math.PI) / 180,
      path.distance[0] + distance(t) * (path.distance[1] - path.distance[0]),
      [shake(0.004), shake(0.004), shake(0.004)],
      (roll(t) - 0.5) * 16 + shake(1),
    );
  });
}

/** The capture mat under a plain vase instead of the textured product on its textured table. */
export interface MatScene {
  /** The page's black shapes, mm from the page's top-left. */
  rects: readonly { x: number; y: number; w: number; h: number }[];
  pageMm: { width: number; height: number };
  /** Where the page's centre lies (x, z in metres): the world's origin is the board's centre. */
  pageCentre: [number, number];
  /** Where the vase stands (x, z in metres). */
  productAt: [number, number];
  pxPerMm: number;
}

export async function renderSyntheticCapture(opts: {
  chromiumPath: string;
  count: number;
  width: number;
  height: number;
  mat?: MatScene;
  path?: HandheldPath;
  /** Leave the product out: photos (and empty masks) of the bare textured table. */
  empty?: boolean;
  /** These cameras instead of `count` handheld photos along `path`. */
  cameras?: readonly FixtureCamera[];
}): Promise<SyntheticCapture> {
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
    const shots = await page.evaluate(
      (args) => (window as unknown as { shoot: (a: unknown) => Promise<{ image: string; mask: string }[]> }).shoot(args),
      { width: opts.width, height: opts.height, cameras: opts.cameras ?? handheldCameras(opts.count, 3, opts.path), mat: opts.mat, empty: opts.empty === true },
    );
    const decode = (url: string) => Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    return {
      shots: shots.map((s) => ({ image: decode(s.image), mask: decode(s.mask) })),
      size: opts.mat ? { width: 0.076, height: 0.14, depth: 0.076 } : { width: 0.07, height: 0.12, depth: 0.06 },
    };
  } finally {
    await browser.close();
  }
}

/**
 * Posed carving as production runs it, with the true height given and `heldOut` views kept out of carving;
 * with the model, its size error per side (width, height, depth) against the truth, as fractions.
 */
export async function carveAtTrueHeight(
  prepared: readonly PreparedView[],
  recovery: CameraRecovery,
  size: SyntheticCapture['size'],
  heldOut: ReadonlySet<number>,
): Promise<{ result: PosedResult; errors: number[] }> {
  const result = await generatePosedHull(
    prepared,
    recovery,
    { triangleBudget: 20_000, textureSize: 1024, dimensions: { height: size.height }, heldOut },
    async () => undefined,
  );
  return { result, errors: (['width', 'height', 'depth'] as const).map((side) => result.dimensions[side] / size[side] - 1) };
}
