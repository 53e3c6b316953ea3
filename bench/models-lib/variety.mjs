// Ten kinds of glTF file as other tools write them (Draco, meshopt, quantized, textured PBR, vertex colours,
// transmission, skinned, several primitives, a node hierarchy in centimetres, a large scan), each built from
// shapes whose true size is known in advance: the answer comes from the construction, not from a measurement.
// Used by bench/models.mjs and by the server's model-variety test.
import { Accessor, Document, Logger, Primitive } from '@gltf-transform/core';
import {
  KHRMaterialsClearcoat,
  KHRMaterialsIOR,
  KHRMaterialsTransmission,
  KHRMaterialsVolume,
  KHRTextureTransform,
} from '@gltf-transform/extensions';
import { draco, meshopt, quantize } from '@gltf-transform/functions';
import { meshCodecIO } from '@plinth/media';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import sharp from 'sharp';

// gltf-transform reports each step (prune, sparse sizes) on stdout; a bench table should not be interleaved with it.
const quiet = new Logger(Logger.Verbosity.ERROR);

/** One NodeIO that writes and reads Draco and meshopt: the media engine's own. */
export const varietyIO = meshCodecIO;

// ---- geometry ----------------------------------------------------------------------------------------------

/** A primitive from plain arrays; `mode` defaults to triangles. */
function primitive(doc, { positions, normals, uvs, colors, indices, mode, sparse = false }) {
  const buffer = doc.getRoot().listBuffers()[0];
  const accessor = (type, array) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const prim = doc.createPrimitive().setAttribute('POSITION', accessor(Accessor.Type.VEC3, new Float32Array(positions)).setSparse(sparse));
  if (normals) prim.setAttribute('NORMAL', accessor(Accessor.Type.VEC3, new Float32Array(normals)));
  if (uvs) prim.setAttribute('TEXCOORD_0', accessor(Accessor.Type.VEC2, new Float32Array(uvs)));
  if (colors) prim.setAttribute('COLOR_0', accessor(Accessor.Type.VEC4, new Uint8Array(colors)).setNormalized(true));
  if (indices) prim.setIndices(accessor(Accessor.Type.SCALAR, positions.length / 3 > 65535 ? new Uint32Array(indices) : new Uint16Array(indices)));
  if (mode !== undefined) prim.setMode(mode);
  return prim;
}

/** An axis-aligned box from min to max: 24 vertices (flat faces), 12 triangles. */
function boxArrays(min, max) {
  const positions = [];
  const normals = [];
  const uvs = [];
  const indices = [];
  // Each face: the axis it faces along, its sign, and the two axes spanning it.
  for (const [axis, sign, u, v] of [[0, 1, 2, 1], [0, -1, 2, 1], [1, 1, 0, 2], [1, -1, 0, 2], [2, 1, 0, 1], [2, -1, 0, 1]]) {
    const base = positions.length / 3;
    for (const [a, b] of [[0, 0], [1, 0], [1, 1], [0, 1]]) {
      const p = [0, 0, 0];
      p[axis] = sign > 0 ? max[axis] : min[axis];
      p[u] = a ? max[u] : min[u];
      p[v] = b ? max[v] : min[v];
      positions.push(...p);
      const n = [0, 0, 0];
      n[axis] = sign;
      normals.push(...n);
      uvs.push(a, 1 - b);
    }
    // Wound so the face looks outwards.
    const flip = (sign > 0) !== ((u + 1) % 3 === v);
    indices.push(...(flip ? [base, base + 2, base + 1, base, base + 3, base + 2] : [base, base + 1, base + 2, base, base + 2, base + 3]));
  }
  return { positions, normals, uvs, indices };
}

/**
 * A surface of revolution about +y through `profile` ([radius, y] pairs). `segments` is a multiple of 4, so
 * rings have vertices at exactly ±radius on x and z: the true extent is the largest radius.
 */
function latheArrays(profile, segments) {
  if (segments % 4 !== 0) throw new Error('segments must be a multiple of 4');
  const positions = [];
  const normals = [];
  const uvs = [];
  const indices = [];
  for (let i = 0; i < profile.length; i++) {
    const [r, y] = profile[i];
    for (let s = 0; s <= segments; s++) {
      const quarter = s % (segments / 4) === 0;
      const k = (s / (segments / 4)) % 4;
      // Exact axis values at the quarter turns (Math.cos(Math.PI / 2) is not 0).
      const c = quarter ? [1, 0, -1, 0][k] : Math.cos((2 * Math.PI * s) / segments);
      const n = quarter ? [0, 1, 0, -1][k] : Math.sin((2 * Math.PI * s) / segments);
      positions.push(r * c, y, r * n);
      normals.push(c, 0, n);
      uvs.push(s / segments, i / (profile.length - 1));
    }
  }
  const row = segments + 1;
  for (let i = 0; i < profile.length - 1; i++) {
    for (let s = 0; s < segments; s++) {
      const a = i * row + s;
      const b = a + row;
      indices.push(a, b, a + 1, a + 1, b, b + 1);
    }
  }
  return { positions, normals, uvs, indices };
}

function latheTrueBox(profile) {
  const r = Math.max(...profile.map(([radius]) => radius));
  const ys = profile.map(([, y]) => y);
  return { min: [-r, Math.min(...ys), -r], max: [r, Math.max(...ys), r] };
}

const unionBox = (boxes) => ({
  min: [0, 1, 2].map((i) => Math.min(...boxes.map((b) => b.min[i]))),
  max: [0, 1, 2].map((i) => Math.max(...boxes.map((b) => b.max[i]))),
});

const sizeOf = (box) => [0, 1, 2].map((i) => box.max[i] - box.min[i]);

function newDocument(name) {
  const doc = new Document().setLogger(quiet);
  doc.createBuffer();
  doc.getRoot().getAsset().generator = `Plinth model-variety (${name})`;
  const scene = doc.createScene(name);
  doc.getRoot().setDefaultScene(scene);
  return { doc, scene };
}

/** A node holding one mesh of the given primitives. */
function meshNode(doc, name, prims) {
  const mesh = doc.createMesh(name);
  for (const p of prims) mesh.addPrimitive(p);
  return doc.createNode(name).setMesh(mesh);
}

async function pngTexture(doc, name, width, pixel) {
  const data = Buffer.alloc(width * width * 4);
  for (let y = 0; y < width; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 4);
  const png = await sharp(data, { raw: { width, height: width, channels: 4 } }).png().toBuffer();
  return doc.createTexture(name).setImage(new Uint8Array(png)).setMimeType('image/png');
}

const triangles = (positionsOrIndices) => positionsOrIndices.length / 3;

// ---- the ten models ------------------------------------------------------------------------------------------

/** A chair of boxes, Draco-compressed (edgebreaker), as Blender's exporter with compression on writes it. */
async function dracoChair() {
  const { doc, scene } = newDocument('draco-chair');
  const parts = [
    { min: [-0.22, 0.43, -0.22], max: [0.22, 0.47, 0.22] },
    { min: [-0.22, 0.47, -0.22], max: [0.22, 0.92, -0.19] },
    ...[[-1, -1], [1, -1], [-1, 1], [1, 1]].map(([sx, sz]) => ({
      min: [sx * 0.2 - 0.02, 0, sz * 0.2 - 0.02],
      max: [sx * 0.2 + 0.02, 0.43, sz * 0.2 + 0.02],
    })),
  ];
  const material = doc.createMaterial('wood').setBaseColorFactor([0.55, 0.38, 0.22, 1]).setRoughnessFactor(0.7);
  for (const [i, part] of parts.entries()) {
    scene.addChild(meshNode(doc, `part${i}`, [primitive(doc, boxArrays(part.min, part.max)).setMaterial(material)]));
  }
  await doc.transform(draco({ method: 'edgebreaker' }));
  return { doc, truth: unionBox(parts), triangles: parts.length * 12 };
}

/** A lamp (lathe), meshopt-compressed with quantization, as gltfpack writes it. */
async function meshoptLamp() {
  const { doc, scene } = newDocument('meshopt-lamp');
  const profile = [[0, 0], [0.09, 0], [0.09, 0.02], [0.015, 0.03], [0.015, 0.32], [0.06, 0.3], [0.13, 0.45], [0.02, 0.46], [0, 0.46]];
  const arrays = latheArrays(profile, 48);
  const material = doc.createMaterial('brass').setBaseColorFactor([0.8, 0.6, 0.3, 1]).setMetallicFactor(1).setRoughnessFactor(0.3);
  scene.addChild(meshNode(doc, 'lamp', [primitive(doc, arrays).setMaterial(material)]));
  await doc.transform(meshopt({ encoder: MeshoptEncoder, level: 'high' }));
  return { doc, truth: latheTrueBox(profile), triangles: triangles(arrays.indices) };
}

/** A vase with KHR_mesh_quantization: 14-bit positions, the dequantisation in the node's transform. */
async function quantizedVase() {
  const { doc, scene } = newDocument('quantized-vase');
  const profile = [];
  for (let i = 0; i <= 40; i++) {
    const y = (0.38 * i) / 40;
    profile.push([0.06 + 0.05 * Math.sin((Math.PI * i) / 40) ** 2 - 0.02 * (i / 40), y]);
  }
  profile.push([0, 0.38]);
  profile.unshift([0, 0]);
  const arrays = latheArrays(profile, 64);
  const material = doc.createMaterial('glaze').setBaseColorFactor([0.2, 0.35, 0.6, 1]).setRoughnessFactor(0.2);
  scene.addChild(meshNode(doc, 'vase', [primitive(doc, arrays).setMaterial(material)]).setTranslation([0.3, 0, -0.1]));
  await doc.transform(quantize({ quantizePosition: 14, quantizeNormal: 10, quantizeTexcoord: 12 }));
  const t = latheTrueBox(profile);
  return { doc, truth: { min: [t.min[0] + 0.3, t.min[1], t.min[2] - 0.1], max: [t.max[0] + 0.3, t.max[1], t.max[2] - 0.1] }, triangles: triangles(arrays.indices) };
}

/** A box with a full PNG PBR set (base colour, metal-rough, normal, occlusion, emissive), clearcoat and a texture transform. */
async function pbrBox() {
  const { doc, scene } = newDocument('pbr-box');
  const size = 256;
  const base = await pngTexture(doc, 'base', size, (x, y) => ((x >> 5) + (y >> 5)) % 2 ? [200, 60, 40, 255] : [240, 230, 210, 255]);
  const mr = await pngTexture(doc, 'metalRough', size, (x) => [255, 80 + (x >> 1), x > 128 ? 255 : 0, 255]);
  const normal = await pngTexture(doc, 'normal', size, (x, y) => [128 + Math.round(40 * Math.sin(x / 8)), 128 + Math.round(40 * Math.sin(y / 8)), 230, 255]);
  const occlusion = await pngTexture(doc, 'occlusion', size, (x, y) => [255 - ((x * y) >> 9), 0, 0, 255]);
  const emissive = await pngTexture(doc, 'emissive', size, (x, y) => (x - 128) ** 2 + (y - 128) ** 2 < 400 ? [255, 200, 50, 255] : [0, 0, 0, 255]);
  const material = doc
    .createMaterial('painted')
    .setBaseColorTexture(base)
    .setMetallicRoughnessTexture(mr)
    .setNormalTexture(normal)
    .setOcclusionTexture(occlusion)
    .setEmissiveTexture(emissive)
    .setEmissiveFactor([1, 1, 1]);
  material.setExtension('KHR_materials_clearcoat', doc.createExtension(KHRMaterialsClearcoat).createClearcoat().setClearcoatFactor(0.6).setClearcoatRoughnessFactor(0.1));
  material.getBaseColorTextureInfo().setExtension('KHR_texture_transform', doc.createExtension(KHRTextureTransform).createTransform().setScale([2, 2]));
  const box = { min: [-0.25, 0, -0.125], max: [0.25, 0.35, 0.125] };
  scene.addChild(meshNode(doc, 'crate', [primitive(doc, boxArrays(box.min, box.max)).setMaterial(material)]));
  return { doc, truth: box, triangles: 12 };
}

/** A terrain-like scan with per-vertex colours (normalised bytes) and no textures, as photogrammetry tools write. */
async function vertexColourTerrain() {
  const { doc, scene } = newDocument('vertex-colours');
  const n = 64;
  const positions = [];
  const colors = [];
  const indices = [];
  let minY = Infinity;
  let maxY = -Infinity;
  for (let j = 0; j <= n; j++) {
    for (let i = 0; i <= n; i++) {
      const x = -0.4 + (0.8 * i) / n;
      const z = -0.3 + (0.6 * j) / n;
      const y = 0.05 + 0.04 * Math.sin(i / 5) * Math.cos(j / 7);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
      positions.push(x, y, z);
      colors.push(Math.round((255 * i) / n), Math.round((255 * j) / n), 120, 255);
    }
  }
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const a = j * (n + 1) + i;
    indices.push(a, a + n + 1, a + 1, a + 1, a + n + 1, a + n + 2);
  }
  const material = doc.createMaterial('vertex').setRoughnessFactor(0.9);
  scene.addChild(meshNode(doc, 'terrain', [primitive(doc, { positions, colors, indices }).setMaterial(material)]));
  return { doc, truth: { min: [-0.4, minY, -0.3], max: [0.4, maxY, 0.3] }, triangles: triangles(indices) };
}

/** A wine glass with KHR_materials_transmission, volume and IOR. */
async function transmissionGlass() {
  const { doc, scene } = newDocument('transmission-glass');
  const profile = [[0, 0], [0.035, 0], [0.035, 0.004], [0.004, 0.01], [0.004, 0.09], [0.03, 0.1], [0.042, 0.16], [0.038, 0.21], [0.036, 0.21], [0, 0.12]];
  const arrays = latheArrays(profile, 64);
  const material = doc.createMaterial('glass').setBaseColorFactor([0.95, 0.97, 1, 1]).setRoughnessFactor(0.05).setMetallicFactor(0);
  material.setExtension('KHR_materials_transmission', doc.createExtension(KHRMaterialsTransmission).createTransmission().setTransmissionFactor(0.95));
  material.setExtension('KHR_materials_volume', doc.createExtension(KHRMaterialsVolume).createVolume().setThicknessFactor(0.004));
  material.setExtension('KHR_materials_ior', doc.createExtension(KHRMaterialsIOR).createIOR().setIOR(1.5));
  scene.addChild(meshNode(doc, 'glass', [primitive(doc, arrays).setMaterial(material)]));
  return { doc, truth: latheTrueBox(profile), triangles: triangles(arrays.indices) };
}

/**
 * A skinned arm modelled in centimetres along +y, bound to two joints under an armature node that scales by
 * 0.01 and turns the arm to lie along +z (a rig exported from a Z-up tool). The skinned mesh's node sits at the
 * root with no transform, as the glTF spec asks; the rest pose is the bind pose, so the true size is the
 * armature's transform applied to the mesh: 0.2 × 0.2 × 2 m. An animation bends the elbow; the rest pose is
 * what is measured.
 */
async function skinnedArm() {
  const { doc, scene } = newDocument('skinned-arm');
  const profile = [[0, 0], [10, 0], [10, 100], [8, 120], [8, 200], [0, 200]];
  const arrays = latheArrays(profile, 16);
  const count = arrays.positions.length / 3;
  const joints = new Uint8Array(count * 4);
  const weights = new Float32Array(count * 4);
  for (let v = 0; v < count; v++) {
    const y = arrays.positions[v * 3 + 1];
    const w = Math.min(1, Math.max(0, (y - 80) / 40));
    joints.set([0, w > 0 ? 1 : 0, 0, 0], v * 4);
    weights.set([1 - w, w, 0, 0], v * 4);
  }
  const prim = primitive(doc, arrays).setMaterial(doc.createMaterial('skin').setBaseColorFactor([0.8, 0.6, 0.5, 1]));
  const buffer = doc.getRoot().listBuffers()[0];
  prim.setAttribute('JOINTS_0', doc.createAccessor().setType('VEC4').setArray(joints).setBuffer(buffer));
  prim.setAttribute('WEIGHTS_0', doc.createAccessor().setType('VEC4').setArray(weights).setBuffer(buffer));

  const s = Math.SQRT1_2;
  const armature = doc.createNode('Armature').setScale([0.01, 0.01, 0.01]).setRotation([s, 0, 0, s]);
  const shoulder = doc.createNode('shoulder');
  const elbow = doc.createNode('elbow').setTranslation([0, 100, 0]);
  armature.addChild(shoulder);
  shoulder.addChild(elbow);
  // Inverse bind matrices take the mesh into each joint's space at rest, relative to the armature.
  const ibm = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -100, 0, 1]);
  const skin = doc
    .createSkin('arm')
    .addJoint(shoulder)
    .addJoint(elbow)
    .setSkeleton(shoulder)
    .setInverseBindMatrices(doc.createAccessor().setType('MAT4').setArray(ibm).setBuffer(buffer));
  const arm = meshNode(doc, 'arm', [prim]).setSkin(skin);
  scene.addChild(armature).addChild(arm);

  const times = doc.createAccessor().setType('SCALAR').setArray(new Float32Array([0, 1, 2])).setBuffer(buffer);
  const bend = Math.sin(Math.PI / 6);
  const rotations = doc.createAccessor().setType('VEC4').setArray(new Float32Array([0, 0, 0, 1, bend, 0, 0, Math.cos(Math.PI / 6), 0, 0, 0, 1])).setBuffer(buffer);
  const sampler = doc.createAnimationSampler().setInput(times).setOutput(rotations).setInterpolation('LINEAR');
  doc.createAnimation('wave').addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(elbow).setTargetPath('rotation').setSampler(sampler));
  // Rotation by +90° about x takes (x, y, z) to (x, -z, y).
  return { doc, truth: { min: [-0.1, -0.1, 0], max: [0.1, 0.1, 2] }, triangles: triangles(arrays.indices) };
}

/** A mug: one mesh, three primitives and materials; the band is a triangle strip, the handle's positions sparse. */
async function multiPrimitiveMug() {
  const { doc, scene } = newDocument('multi-primitive');
  const bodyProfile = [[0, 0], [0.045, 0], [0.045, 0.1], [0.04, 0.1], [0.04, 0.008], [0, 0.008]];
  const body = primitive(doc, latheArrays(bodyProfile, 48)).setMaterial(doc.createMaterial('ceramic').setBaseColorFactor([0.95, 0.95, 0.92, 1]));
  const segments = 48;
  const band = [];
  for (let s = 0; s <= segments; s++) {
    const a = (2 * Math.PI * s) / segments;
    band.push(0.0455 * Math.cos(a), 0.06, 0.0455 * Math.sin(a), 0.0455 * Math.cos(a), 0.075, 0.0455 * Math.sin(a));
  }
  const stripe = primitive(doc, { positions: band, mode: Primitive.Mode.TRIANGLE_STRIP }).setMaterial(doc.createMaterial('stripe').setBaseColorFactor([0.7, 0.1, 0.1, 1]));
  const handleBox = { min: [0.045, 0.02, -0.006], max: [0.075, 0.085, 0.006] };
  const handle = primitive(doc, { ...boxArrays(handleBox.min, handleBox.max), sparse: true }).setMaterial(doc.createMaterial('handle').setBaseColorFactor([0.2, 0.2, 0.25, 1]));
  scene.addChild(meshNode(doc, 'mug', [body, stripe, handle]));
  const bodyBox = latheTrueBox(bodyProfile);
  // The band reaches 0.0455 only at its cos = ±1 and sin = ±1 vertices (s = 0, 12, 24, 36 of 48).
  const bandBox = { min: [-0.0455, 0.06, -0.0455], max: [0.0455, 0.075, 0.0455] };
  return { doc, truth: unionBox([bodyBox, bandBox, handleBox]), triangles: triangles(latheArrays(bodyProfile, 48).indices) + 2 * segments + 12 };
}

/**
 * A side table modelled Z-up in centimetres under a root that turns it Y-up and scales it by 0.01, as FBX
 * converters write; four legs share one mesh (instances), and a shelf is turned 45° about the vertical.
 */
async function hierarchyTable() {
  const { doc, scene } = newDocument('hierarchy-table');
  const s = Math.SQRT1_2;
  const root = doc.createNode('RootNode').setRotation([-s, 0, 0, s]).setScale([0.01, 0.01, 0.01]);
  scene.addChild(root);
  const wood = doc.createMaterial('oak').setBaseColorFactor([0.6, 0.45, 0.3, 1]);
  const top = meshNode(doc, 'top', [primitive(doc, boxArrays([-60, -30, 71], [60, 30, 75])).setMaterial(wood)]);
  root.addChild(top);
  const legMesh = doc.createMesh('leg').addPrimitive(primitive(doc, boxArrays([-2.5, -2.5, 0], [2.5, 2.5, 71])).setMaterial(wood));
  for (const [x, y] of [[-55, -25], [55, -25], [-55, 25], [55, 25]]) {
    root.addChild(doc.createNode(`leg ${x} ${y}`).setMesh(legMesh).setTranslation([x, y, 0]));
  }
  // The shelf: 40 × 40 × 2 cm, centred at x = 55, turned 45° about z, sticking out past the top's edge.
  const shelfPivot = doc.createNode('shelf pivot').setTranslation([55, 0, 75]).setRotation([0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)]);
  shelfPivot.addChild(meshNode(doc, 'shelf', [primitive(doc, boxArrays([-20, -20, 0], [20, 20, 2])).setMaterial(wood)]));
  top.addChild(shelfPivot);
  const half = 20 * Math.SQRT2;
  // Z-up cm box, then the root: (x, y, z) → (x, z, -y) in metres.
  const zUp = { min: [-60, -30, 0], max: [55 + half, 30, 77] };
  const truth = { min: [zUp.min[0] / 100, zUp.min[2] / 100, -zUp.max[1] / 100], max: [zUp.max[0] / 100, zUp.max[2] / 100, -zUp.min[1] / 100] };
  return { doc, truth, triangles: 12 * 6 };
}

/** A dense scanned vase: `triangles` triangles in one primitive with 32-bit indices. */
async function largeScan(target) {
  const { doc, scene } = newDocument('large-scan');
  const segments = 4 * Math.max(1, Math.round(Math.sqrt(target / 8) / 4) * 2);
  const rings = Math.max(2, Math.round(target / (2 * segments)) + 1);
  const profile = [];
  for (let i = 0; i < rings; i++) {
    const t = i / (rings - 1);
    profile.push([0.08 + 0.06 * Math.sin(Math.PI * t) + 0.01 * Math.sin(40 * t), 0.5 * t]);
  }
  const arrays = latheArrays(profile, segments);
  scene.addChild(meshNode(doc, 'scan', [primitive(doc, arrays).setMaterial(doc.createMaterial('clay').setBaseColorFactor([0.7, 0.5, 0.4, 1]))]));
  return { doc, truth: latheTrueBox(profile), triangles: triangles(arrays.indices) };
}

export const MODEL_KINDS = [
  { name: 'draco-chair', make: dracoChair },
  { name: 'meshopt-lamp', make: meshoptLamp },
  { name: 'quantized-vase', make: quantizedVase },
  { name: 'pbr-box', make: pbrBox },
  { name: 'vertex-colours', make: vertexColourTerrain },
  { name: 'transmission-glass', make: transmissionGlass },
  { name: 'skinned-arm', make: skinnedArm },
  { name: 'multi-primitive', make: multiPrimitiveMug },
  { name: 'hierarchy-table', make: hierarchyTable },
  { name: 'large-scan', make: largeScan },
];

/**
 * Builds one model kind as a GLB. `largeTriangles` sizes the large scan.
 * Returns `{ name, glb, trueSize: [x, y, z] in metres, triangles, extensions }`.
 */
export async function makeModel(name, { largeTriangles = 500_000 } = {}) {
  const kind = MODEL_KINDS.find((k) => k.name === name);
  if (!kind) throw new Error(`unknown model kind ${name}`);
  // First: it also readies the Draco and meshopt encoders the makers use.
  const io = await varietyIO();
  const { doc, truth, triangles: count } = await kind.make(largeTriangles);
  const glb = Buffer.from(await io.writeBinary(doc));
  const extensions = doc.getRoot().listExtensionsUsed().map((e) => e.extensionName);
  return { name, glb, trueSize: sizeOf(truth), triangles: count, extensions };
}

// ---- measuring what came back ----------------------------------------------------------------------------------

function multiply(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}

function apply(m, [x, y, z]) {
  return [m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13], m[2] * x + m[6] * y + m[10] * z + m[14]];
}

/**
 * The scene's size as a glTF viewer shows it at rest: every drawn vertex through its node's world matrix, or
 * for a skinned mesh through its joints (Σ weight × joint world × inverse bind), ignoring the skinned node's own
 * transform as the spec says. Written apart from Plinth's own measurement, so the two can disagree.
 */
export function restPoseSize(doc) {
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const grow = (p) => {
    for (let i = 0; i < 3; i++) {
      min[i] = Math.min(min[i], p[i]);
      max[i] = Math.max(max[i], p[i]);
    }
  };
  scene.traverse((node) => {
    const mesh = node.getMesh();
    if (!mesh) return;
    const skin = node.getSkin();
    const world = node.getWorldMatrix();
    const jointMatrices = skin?.listJoints().map((joint, j) => {
      const ibm = skin.getInverseBindMatrices()?.getElement(j, []) ?? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
      return multiply(joint.getWorldMatrix(), ibm);
    });
    for (const prim of mesh.listPrimitives()) {
      const mode = prim.getMode();
      if (mode !== Primitive.Mode.TRIANGLES && mode !== Primitive.Mode.TRIANGLE_STRIP && mode !== Primitive.Mode.TRIANGLE_FAN) continue;
      const position = prim.getAttribute('POSITION');
      const joints = prim.getAttribute('JOINTS_0');
      const weights = prim.getAttribute('WEIGHTS_0');
      const indices = prim.getIndices();
      const n = indices ? indices.getCount() : position.getCount();
      for (let i = 0; i < n; i++) {
        const v = indices ? indices.getScalar(i) : i;
        const local = position.getElement(v, []);
        if (!jointMatrices || !joints || !weights) {
          grow(apply(world, local));
          continue;
        }
        const j = joints.getElement(v, []);
        const w = weights.getElement(v, []);
        const p = [0, 0, 0];
        for (let k = 0; k < 4; k++) {
          if (!w[k]) continue;
          const q = apply(jointMatrices[j[k]], local);
          for (let a = 0; a < 3; a++) p[a] += w[k] * q[a];
        }
        grow(p);
      }
    }
  });
  return [0, 1, 2].map((i) => max[i] - min[i]);
}

/** Largest relative difference between a measured and a true size, over the three axes. */
export function sizeError(measured, truth) {
  return Math.max(...[0, 1, 2].map((i) => Math.abs(measured[i] - truth[i]) / truth[i]));
}

/** Triangles as drawn (instances counted, strips and fans converted), for the GLB that came back. */
export function drawnTriangles(doc) {
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  let total = 0;
  scene.traverse((node) => {
    for (const prim of node.getMesh()?.listPrimitives() ?? []) {
      const n = prim.getIndices()?.getCount() ?? prim.getAttribute('POSITION').getCount();
      const mode = prim.getMode();
      if (mode === Primitive.Mode.TRIANGLES) total += Math.floor(n / 3);
      else if (mode === Primitive.Mode.TRIANGLE_STRIP || mode === Primitive.Mode.TRIANGLE_FAN) total += Math.max(0, n - 2);
    }
  });
  return total;
}

/**
 * Size of every `points` array in a USDZ's text layer, in metres (Plinth writes points in world space, with no
 * prim transforms and metersPerUnit 1).
 */
export function usdzPointsSize(usdz) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const [, list] of usdz.toString('latin1').matchAll(/point3f\[\] points = \[([^\]]*)\]/g)) {
    for (const [, x, y, z] of list.matchAll(/\(([-\d.e]+), ([-\d.e]+), ([-\d.e]+)\)/g)) {
      [x, y, z].forEach((c, i) => {
        min[i] = Math.min(min[i], Number(c));
        max[i] = Math.max(max[i], Number(c));
      });
    }
  }
  return max.map((m, i) => m - min[i]);
}
