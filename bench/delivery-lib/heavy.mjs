// Heavy third-party-style models for bench/delivery.mjs, built here so the bench needs no downloads:
// a dense photogrammetry-like scan with four 4096 px textures, a CAD part of 2,000 small meshes, a textured
// multi-material product, and a model already light enough to pass through untouched.
import { Document, NodeIO } from '@gltf-transform/core';
import sharp from 'sharp';

/** A photo-like texture: smooth colour fields, fine stripes and grain, JPEG as scans ship them. */
async function texture(size, seed, kind = 'color') {
  const raw = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const u = x / size;
      const v = y / size;
      const i = (y * size + x) * 3;
      if (kind === 'normal') {
        const nx = 0.15 * Math.sin(u * 6.28 * 40 + seed);
        const ny = 0.15 * Math.cos(v * 6.28 * 40);
        raw[i] = Math.round((nx * 0.5 + 0.5) * 255);
        raw[i + 1] = Math.round((ny * 0.5 + 0.5) * 255);
        raw[i + 2] = 255;
        continue;
      }
      const field = Math.sin(u * 6.28 * (2 + seed)) * Math.cos(v * 6.28 * 3) * 0.5 + 0.5;
      const fine = Math.sin((u * 3 + v) * 6.28 * 16) * 0.5 + 0.5;
      const grain = ((x * 73856093) ^ (y * 19349663) ^ seed) & 15;
      raw[i] = Math.min(255, Math.round(70 + 140 * field + 10 * fine + grain));
      raw[i + 1] = Math.min(255, Math.round(50 + 100 * (1 - field) + 30 * fine + grain));
      raw[i + 2] = Math.min(255, Math.round(40 + 60 * field * fine + grain));
    }
  }
  return new Uint8Array(await sharp(raw, { raw: { width: size, height: size, channels: 3 } }).jpeg({ quality: 90 }).toBuffer());
}

function accessor(doc, buffer, type, array) {
  return doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
}

/** A lumpy sphere split into `bands` latitude bands, each with its own material and texture. */
async function lumpySphere(doc, buffer, { rings, segments, bands, textureSize, radius = 0.2 }) {
  const mesh = doc.createMesh('scan');
  const per = Math.ceil(rings / bands);
  for (let band = 0; band < bands; band++) {
    const r0 = band * per;
    const rows = Math.min(rings, r0 + per) - r0 + 1;
    const cols = segments + 1;
    const pos = new Float32Array(rows * cols * 3);
    const nor = new Float32Array(rows * cols * 3);
    const uv = new Float32Array(rows * cols * 2);
    for (let r = 0; r < rows; r++) {
      const theta = (Math.PI * (r0 + r)) / rings;
      for (let c = 0; c < cols; c++) {
        const phi = (2 * Math.PI * c) / segments;
        // Scanner noise on top of the shape: what simplification is meant to remove.
        const bump = 1 + 0.05 * Math.sin(5 * theta) * Math.sin(3 * phi) + 0.002 * Math.sin(r * 1.7 + c * 2.3);
        const k = r * cols + c;
        pos.set([radius * bump * Math.sin(theta) * Math.cos(phi), radius * bump * Math.cos(theta) + radius, radius * bump * Math.sin(theta) * Math.sin(phi)], k * 3);
        // Scans ship smooth normals; the sphere's own are close enough to the lumps' to light them evenly.
        nor.set([Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)], k * 3);
        uv.set([c / segments, r / (rows - 1)], k * 2);
      }
    }
    const idx = new Uint32Array((rows - 1) * segments * 6);
    for (let r = 0, t = 0; r < rows - 1; r++) {
      for (let c = 0; c < segments; c++, t += 6) {
        const a = r * cols + c;
        idx.set([a, a + 1, a + cols, a + cols, a + 1, a + cols + 1], t);
      }
    }
    const material = doc.createMaterial(`band_${band}`).setRoughnessFactor(0.8)
      .setBaseColorTexture(doc.createTexture(`albedo_${band}`).setImage(await texture(textureSize, band)).setMimeType('image/jpeg'));
    mesh.addPrimitive(doc.createPrimitive()
      .setAttribute('POSITION', accessor(doc, buffer, 'VEC3', pos))
      .setAttribute('NORMAL', accessor(doc, buffer, 'VEC3', nor))
      .setAttribute('TEXCOORD_0', accessor(doc, buffer, 'VEC2', uv))
      .setIndices(accessor(doc, buffer, 'SCALAR', idx))
      .setMaterial(material));
  }
  return mesh;
}

/** A closed cylinder of `n` sides (4n triangles), flat-shaded by the viewer (no normals given). */
function cylinder(doc, buffer, n, radius, height, material) {
  const pos = [];
  const idx = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    pos.push(radius * Math.cos(a), 0, radius * Math.sin(a), radius * Math.cos(a), height, radius * Math.sin(a));
  }
  pos.push(0, 0, 0, 0, height, 0);
  const bottom = 2 * n;
  const top = bottom + 1;
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    idx.push(2 * i, 2 * i + 1, 2 * j, 2 * j, 2 * i + 1, 2 * j + 1, bottom, 2 * i, 2 * j, top, 2 * j + 1, 2 * i + 1);
  }
  return doc.createMesh().addPrimitive(doc.createPrimitive()
    .setAttribute('POSITION', accessor(doc, buffer, 'VEC3', new Float32Array(pos)))
    .setIndices(accessor(doc, buffer, 'SCALAR', new Uint16Array(idx)))
    .setMaterial(material));
}

export const HEAVY_MODELS = {
  /** 500,000 triangles, four 4096 px textures. */
  async scan() {
    const doc = new Document();
    const buffer = doc.createBuffer();
    doc.createScene().addChild(doc.createNode('scan').setMesh(await lumpySphere(doc, buffer, { rings: 500, segments: 500, bands: 4, textureSize: 4096 })));
    return doc;
  },
  /** A CAD export: a plate with 2,000 separate pins and bolts, each its own mesh (exporters rarely share them). */
  async cad() {
    const doc = new Document();
    const buffer = doc.createBuffer();
    const steel = doc.createMaterial('steel').setBaseColorFactor([0.6, 0.62, 0.65, 1]).setMetallicFactor(0.9).setRoughnessFactor(0.35);
    const brass = doc.createMaterial('brass').setBaseColorFactor([0.78, 0.6, 0.25, 1]).setMetallicFactor(0.9).setRoughnessFactor(0.4);
    const root = doc.createNode('part');
    doc.createScene().addChild(root);
    const plate = cylinder(doc, buffer, 64, 0.3, 0.02, steel);
    root.addChild(doc.createNode('plate').setMesh(plate));
    for (let i = 0; i < 2000; i++) {
      const a = i * 2.399963; // golden angle: pins spread evenly over the disc
      const r = 0.28 * Math.sqrt((i + 0.5) / 2000);
      const mesh = cylinder(doc, buffer, 24, 0.004, 0.01 + 0.02 * ((i * 7) % 5) / 5, i % 3 ? steel : brass);
      root.addChild(doc.createNode(`pin_${i}`).setMesh(mesh).setTranslation([r * Math.cos(a), 0.02, r * Math.sin(a)]));
    }
    return doc;
  },
  /** A product with a textured body, a normal-mapped fabric and a plain metal base: three materials, 2048 px maps. */
  async product() {
    const doc = new Document();
    const buffer = doc.createBuffer();
    const body = await lumpySphere(doc, buffer, { rings: 240, segments: 240, bands: 2, textureSize: 2048, radius: 0.15 });
    const fabric = body.listPrimitives()[1].getMaterial();
    fabric.setNormalTexture(doc.createTexture('fabric_normal').setImage(await texture(2048, 9, 'normal')).setMimeType('image/jpeg'));
    const metal = doc.createMaterial('base').setBaseColorFactor([0.2, 0.2, 0.22, 1]).setMetallicFactor(1).setRoughnessFactor(0.3);
    const scene = doc.createScene();
    scene.addChild(doc.createNode('body').setMesh(body).setTranslation([0, 0.1, 0]));
    scene.addChild(doc.createNode('base').setMesh(cylinder(doc, buffer, 128, 0.12, 0.1, metal)));
    return doc;
  },
  /** Already within every budget: passed through byte for byte. */
  async light() {
    const doc = new Document();
    const buffer = doc.createBuffer();
    doc.createScene().addChild(doc.createNode('light').setMesh(await lumpySphere(doc, buffer, { rings: 60, segments: 60, bands: 1, textureSize: 512 })));
    return doc;
  },
};

export async function heavyModel(name) {
  return Buffer.from(await new NodeIO().writeBinary(await HEAVY_MODELS[name]()));
}
