/**
 * The page that headless Chromium loads to draw a model with three.js. It is served
 * from a made-up origin through request interception (see renders.ts), so the
 * browser never needs a server or the network. Kept as plain browser JavaScript in
 * a string: it runs in the page, not in Node, and must not be compiled by tsc.
 */

export const RENDER_ORIGIN = 'http://plinth.render';

/** URL paths the page asks for; renders.ts answers each one. */
export const PAGE_PATH = '/index.html';
export const MODEL_PATH = '/model.glb';
/** Everything below this prefix is a file of the installed `three` package. */
export const THREE_PREFIX = '/three/';

export interface PageLoadArgs {
  size: number;
  fovDeg: number;
  /** Share of the frame's half-height the bounding sphere's silhouette should span. */
  fill: number;  /**
   * Light with a studio environment (three's RoomEnvironment, as the embed's model-viewer "neutral" lighting
   * is) instead of lights alone: metals then reflect as they do in the viewer. Slow under SwiftShader (the
   * image-based-lighting shader compiles per material), so it is for single posters, not turntables.
   */
  environment?: boolean;
}

/** What `window.plinthPage.load` resolves to, for logging and sanity checks. */
export interface PageLoadResult {
  radius: number;
  meshes: number;
}

// Import map: GLTFLoader and friends `import … from 'three'`, which a browser can
// only resolve through a map. Their relative imports (../utils/…) resolve by URL.
const IMPORT_MAP = JSON.stringify({
  imports: {
    three: `${THREE_PREFIX}build/three.module.js`,
    'three/addons/': `${THREE_PREFIX}examples/jsm/`,
  },
});

const PAGE_SCRIPT = String.raw`
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { DRACOLoader } from 'three/addons/loaders/DRACOLoader.js';
import { RoomEnvironment } from 'three/addons/environments/RoomEnvironment.js';

let renderer = null;
let scene = null;
let camera = null;
let sphere = null;
let distance = 0;

// The page is kept open from one model to the next (see warm-renderer.ts): the WebGL context, the studio
// environment and the compiled shaders stay; each load replaces the scene and frees the previous model.
let environmentMap = null;

function freeScene(old) {
  old.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    for (const m of o.material ? [].concat(o.material) : []) {
      for (const value of Object.values(m)) if (value && value.isTexture) value.dispose();
      m.dispose();
    }
  });
}

async function load({ size, fovDeg, fill, environment }) {
  if (!renderer) {
    try {
      renderer = new THREE.WebGLRenderer({ alpha: true, antialias: true, preserveDrawingBuffer: true });
    } catch (err) {
      throw new Error('WebGL is unavailable in this Chromium (check the SwiftShader flags): ' + err.message);
    }
    // Pixel ratio 1 and no CSS sizing: the drawing buffer is exactly size x size.
    renderer.setPixelRatio(1);
    renderer.setClearColor(0x000000, 0);
    renderer.outputColorSpace = THREE.SRGBColorSpace;
    // Khronos PBR Neutral keeps base colours close to what the merchant authored;
    // ACES shifts hues and darkens, which reads as "wrong colour" on product shots.
    renderer.toneMapping = THREE.NeutralToneMapping;
    renderer.toneMappingExposure = 1;
  }
  renderer.setSize(size, size, false);
  const previous = scene;
  sphere = null;

  scene = new THREE.Scene();
  // scene.background stays null so the cleared alpha 0 survives into the PNG.
  // Lights only, no PMREM environment: under SwiftShader the image-based-lighting
  // variant of the PBR shader takes ~20 s to compile per material variant, against
  // well under a second without it. The cost is that mirror-like metals get no
  // reflections and render dark.
  // A sky/ground hemisphere stands in for a soft studio tent; the directional
  // lights ride on the camera so every azimuth is lit the same way and the views
  // compare like for like.
  if (environment) {
    if (!environmentMap) {
      const pmrem = new THREE.PMREMGenerator(renderer);
      // Faces of 128 px, not three's 256: the prefiltering is drawn on the CPU (SwiftShader) and was nearly all
      // of a browser's first draw (about 4x as long at 256). Side by side at 512 px, a glossy metal ball differs
      // by 0.5% RMS and a rough printed one by 0.3%: the room's reflections are soft at either size.
      environmentMap = pmrem.fromScene(new RoomEnvironment(), 0.04, 0.1, 100, { size: 128 }).texture;
      pmrem.dispose();
    }
    scene.environment = environmentMap;
  } else {
    scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8a8a, 1.6));
  }
  camera = new THREE.PerspectiveCamera(fovDeg, 1, 0.01, 100);
  // Positions are camera-relative (x right, y up, +z behind the camera) and each
  // light aims at the camera's origin, so only their direction matters: key from
  // upper right, fill from the left, rim from above and behind the model.
  for (const [intensity, x, y, z] of environment ? [] : [[1.8, 1, 1.4, 1.2], [0.6, -1.2, 0.3, 0.8], [0.8, -0.4, 1, -1.2]]) {
    const light = new THREE.DirectionalLight(0xffffff, intensity);
    light.position.set(x, y, z);
    light.target = camera;
    camera.add(light);
  }
  scene.add(camera);

  const loader = new GLTFLoader();
  loader.setMeshoptDecoder(MeshoptDecoder);
  // Stored models keep the Draco compression they arrived with; the decoder is three's own copy.
  const draco = new DRACOLoader().setDecoderPath('${THREE_PREFIX}examples/jsm/libs/draco/gltf/');
  loader.setDRACOLoader(draco);
  let gltf;
  try {
    gltf = await loader.loadAsync('${MODEL_PATH}');
  } catch (err) {
    if (previous) freeScene(previous);
    throw new Error('GLB failed to load: ' + (err && err.message ? err.message : String(err)));
  } finally {
    draco.dispose();
  }
  const model = gltf.scene;
  scene.add(model);
  model.updateMatrixWorld(true);
  let meshes = 0;
  model.traverse((o) => { if (o.isMesh) meshes++; });
  const box = new THREE.Box3().setFromObject(model);
  if (meshes === 0 || box.isEmpty()) throw new Error('GLB has no visible geometry');
  sphere = box.getBoundingSphere(new THREE.Sphere());
  if (!(sphere.radius > 0) || !Number.isFinite(sphere.radius)) throw new Error('GLB has degenerate bounds');

  // A sphere of radius r at distance d projects to a disc of half-size tan(asin(r/d))
  // on the image plane, whose half-height is tan(fov/2). Solving for the requested
  // fill gives d. The sphere is the same from every side, so the scale is shared by
  // all views (a turntable should not zoom between frames).
  const halfFov = (fovDeg * Math.PI) / 360;
  distance = sphere.radius / Math.sin(Math.atan(fill * Math.tan(halfFov)));
  camera.near = Math.max((distance - sphere.radius) * 0.5, distance * 1e-4);
  camera.far = distance + sphere.radius * 2;
  camera.updateProjectionMatrix();
  // The previous model is freed once the new one holds its shaders: those both use stay compiled.
  if (previous) {
    renderer.compile(scene, camera);
    freeScene(previous);
  }
  return { radius: sphere.radius, meshes };
}

// Same orbit convention as turntable-camera.ts: azimuth 0 looks at the +z face,
// 90 at the +x face; elevation tilts the camera up, looking down at the model.
function render(azimuthDeg, elevationDeg) {
  const t = (azimuthDeg * Math.PI) / 180;
  const p = (elevationDeg * Math.PI) / 180;
  const c = sphere.center;
  camera.position.set(
    c.x + distance * Math.sin(t) * Math.cos(p),
    c.y + distance * Math.sin(p),
    c.z + distance * Math.cos(t) * Math.cos(p),
  );
  camera.up.set(0, 1, 0);
  camera.lookAt(c);
  camera.updateMatrixWorld(true);
  renderer.render(scene, camera);
  return renderer.domElement.toDataURL('image/png');
}

window.plinthPage = { load, render };
`;

export function renderPageHtml(): string {
  return `<!doctype html>
<html><head><meta charset="utf-8">
<script type="importmap">${IMPORT_MAP}</script>
<script type="module">${PAGE_SCRIPT}</script>
</head><body></body></html>`;
}
