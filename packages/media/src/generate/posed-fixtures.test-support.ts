import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../render/renders.js';

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

// The product: a 0.06 m-wide block with a 0.04 m cylinder on it, 0.12 m tall in all, asymmetric so views
// differ; both painted with random blobs (features for matching), the table with different blobs.
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
window.shoot = async ({ width, height, cameras }) => {
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
  const blockPaint = [paint(), paint(), paint(), paint(), paint(), paint()];
  const drumPaint = new THREE.MeshStandardMaterial({ map: blobs(1024, 1200, false), roughness: 0.8 });
  const block = new THREE.Mesh(new THREE.BoxGeometry(0.08, 0.06, 0.05), blockPaint);
  block.position.set(0, 0.03, 0);
  const drum = new THREE.Mesh(new THREE.CylinderGeometry(0.02, 0.02, 0.06, 48), drumPaint);
  drum.position.set(0.015, 0.09, 0);
  const product = new THREE.Group();
  product.add(block, drum);
  scene.add(product);
  const table = new THREE.Mesh(new THREE.PlaneGeometry(1.2, 1.2), new THREE.MeshStandardMaterial({ map: blobs(2048, 5000, true), roughness: 0.9 }));
  table.rotation.x = -Math.PI / 2;
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
    block.material = blockPaint;
    drum.material = drumPaint;
    renderer.render(scene, cam);
    const image = renderer.domElement.toDataURL('image/jpeg', 0.92);
    scene.background = new THREE.Color(0x000000);
    table.visible = false;
    block.material = drum.material = white;
    renderer.render(scene, cam);
    out.push({ image, mask: renderer.domElement.toDataURL('image/png') });
  }
  return out;
};
window.ready = true;
</script>`;

/** A walk round the product: `count` photos with seeded jitter in distance, height, aim, roll and step. */
export function handheldCameras(count: number, seed = 3) {
  let s = seed;
  const rnd = () => ((s = (s * 48271) % 2147483647) / 2147483647);
  return Array.from({ length: count }, (_, i) => {
    const azimuth = ((i + (rnd() - 0.5) * 0.3) / count) * 2 * Math.PI;
    const elevation = ((18 + rnd() * 17) * Math.PI) / 180;
    const distance = 0.2 + rnd() * 0.06;
    return {
      x: distance * Math.cos(elevation) * Math.sin(azimuth),
      y: 0.06 + distance * Math.sin(elevation),
      z: distance * Math.cos(elevation) * Math.cos(azimuth),
      tx: (rnd() - 0.5) * 0.02,
      ty: 0.05 + (rnd() - 0.5) * 0.02,
      tz: (rnd() - 0.5) * 0.02,
      rollDeg: (rnd() - 0.5) * 16,
      fovDeg: 45,
    };
  });
}

export async function renderSyntheticCapture(opts: { chromiumPath: string; count: number; width: number; height: number }): Promise<SyntheticCapture> {
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
      { width: opts.width, height: opts.height, cameras: handheldCameras(opts.count) },
    );
    const decode = (url: string) => Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    return {
      shots: shots.map((s) => ({ image: decode(s.image), mask: decode(s.mask) })),
      size: { width: 0.08, height: 0.12, depth: 0.05 },
    };
  } finally {
    await browser.close();
  }
}
