import { Document, type Material } from '@gltf-transform/core';
import sharp from 'sharp';

/** A smooth procedural picture with some fine grain, compressible like a photo rather than like noise. */
export async function paintedTexture(size: number, seed: number, format: 'png' | 'jpeg' = 'jpeg'): Promise<Uint8Array> {
  const raw = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const u = x / size;
      const v = y / size;
      const i = (y * size + x) * 3;
      const base = Math.sin(u * 6.28 * (2 + seed)) * Math.cos(v * 6.28 * 3) * 0.5 + 0.5;
      const stripes = Math.sin((u + v) * 6.28 * 12) * 0.5 + 0.5;
      raw[i] = Math.round(60 + 150 * base);
      raw[i + 1] = Math.round(50 + 120 * stripes * (1 - base * 0.5));
      raw[i + 2] = Math.round(40 + 100 * (1 - base) + 30 * ((seed * 31 + x * 7 + y * 13) % 5) / 5);
    }
  }
  const img = sharp(raw, { raw: { width: size, height: size, channels: 3 } });
  const out = format === 'png' ? await img.png().toBuffer() : await img.jpeg({ quality: 92 }).toBuffer();
  return new Uint8Array(out);
}

export interface ScanOptions {
  /** Rings and segments of the sphere; triangles ≈ 2 × rings × segments. */
  rings: number;
  segments: number;
  /** One material with its own base-colour texture per latitude band. */
  bands: number;
  textureSize: number;
}

/**
 * A bumpy textured sphere like a photogrammetry scan: dense, smooth, UV-mapped, one primitive and one
 * texture per latitude band, so the bands meet at UV seams that simplification must keep closed.
 */
export async function scanDocument(o: ScanOptions): Promise<Document> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const mesh = doc.createMesh('scan');
  const radius = 0.15;
  const ringsPerBand = Math.ceil(o.rings / o.bands);
  for (let band = 0; band < o.bands; band++) {
    const r0 = band * ringsPerBand;
    const r1 = Math.min(o.rings, r0 + ringsPerBand);
    const rows = r1 - r0 + 1;
    const cols = o.segments + 1;
    const pos = new Float32Array(rows * cols * 3);
    const nor = new Float32Array(rows * cols * 3);
    const uv = new Float32Array(rows * cols * 2);
    for (let r = 0; r < rows; r++) {
      const theta = (Math.PI * (r0 + r)) / o.rings;
      for (let c = 0; c < cols; c++) {
        const phi = (2 * Math.PI * c) / o.segments;
        const bump = 1 + 0.06 * Math.sin(5 * theta) * Math.sin(4 * phi) + 0.02 * Math.sin(17 * theta) * Math.cos(13 * phi);
        const n = [Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)];
        const k = r * cols + c;
        for (let j = 0; j < 3; j++) {
          pos[k * 3 + j] = n[j] * radius * bump;
          nor[k * 3 + j] = n[j];
        }
        uv[k * 2] = c / o.segments;
        uv[k * 2 + 1] = r / (rows - 1);
      }
    }
    const idx = new Uint32Array((rows - 1) * o.segments * 6);
    let t = 0;
    for (let r = 0; r < rows - 1; r++) {
      for (let c = 0; c < o.segments; c++) {
        const a = r * cols + c;
        const b = a + cols;
        idx.set([a, a + 1, b, b, a + 1, b + 1], t);
        t += 6;
      }
    }
    const material: Material = doc
      .createMaterial(`band_${band}`)
      .setRoughnessFactor(0.7)
      .setBaseColorTexture(doc.createTexture(`band_${band}`).setImage(await paintedTexture(o.textureSize, band)).setMimeType('image/jpeg'));
    const prim = doc
      .createPrimitive()
      .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(pos).setBuffer(buffer))
      .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(nor).setBuffer(buffer))
      .setAttribute('TEXCOORD_0', doc.createAccessor().setType('VEC2').setArray(uv).setBuffer(buffer))
      .setIndices(doc.createAccessor().setType('SCALAR').setArray(idx).setBuffer(buffer))
      .setMaterial(material);
    mesh.addPrimitive(prim);
  }
  doc.createScene('scene').addChild(doc.createNode('scan').setMesh(mesh));
  return doc;
}
