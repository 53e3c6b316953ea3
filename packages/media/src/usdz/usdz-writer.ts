import type { Document, Material, Node, Primitive, Scene, Texture } from '@gltf-transform/core';
import sharp from 'sharp';
import { writeAlignedZip, type ZipEntry } from './usdz-zip.js';
import { NameScope, UsdaText, quote } from './usdz-usda.js';
import { materialTexCoordSets, writeMaterial, type VertexColorBake } from './usdz-material.js';
import { readAll, triangleList, writeMesh } from './usdz-mesh.js';
import { bakeIntoTexture, bakeVertexColors, readVertexColors, type VertexColorAtlas } from './usdz-vertex-colors.js';
import { MediaError } from '../errors.js';
import { DEFAULT_MODEL_CAPS } from '../gltf/model-caps.js';

// USDZ for iOS Quick Look: a text USD layer (USDA) plus its textures, stored in an
// aligned, uncompressed zip. USDA rather than the binary crate format because it is
// simple to emit and Quick Look reads both.

export const USDZ_LAYER_NAME = 'model.usda';
const ROOT = 'Root';

export interface UsdzOutput {
  usdz: Buffer;
  /** The USDA layer (UTF-8), first entry of the archive. */
  layer: Buffer;
  meshes: number;
  triangles: number;
  textures: number;
}

interface PackedTexture {
  file: string;
  data: Uint8Array;
}

/** A primitive's COLOR_0, and the texture it was baked into (null: displayColor only). */
interface VertexColoring {
  colors: Float64Array;
  /** Set when the bake is an atlas of the triangles, read through the mesh's own texcoords. */
  atlas: VertexColorAtlas | null;
  bake: VertexColorBake | null;
}

/** Quick Look decodes PNG and JPEG; anything else sharp can read becomes PNG. */
async function packTexture(texture: Texture, index: number): Promise<PackedTexture | null> {
  const image = texture.getImage();
  if (!image) return null;
  const mime = texture.getMimeType();
  if (mime === 'image/png') return { file: `textures/texture_${index}.png`, data: image };
  if (mime === 'image/jpeg') return { file: `textures/texture_${index}.jpg`, data: image };
  try {
    const png = await sharp(image).png().toBuffer();
    return { file: `textures/texture_${index}.png`, data: png };
  } catch {
    // KTX2/Basis and unknown formats: the material falls back to its factors.
    return null;
  }
}

export async function writeUsdz(doc: Document, scene?: Scene, maxTriangles = DEFAULT_MODEL_CAPS.maxTriangles): Promise<UsdzOutput> {
  const root = doc.getRoot();
  const target = scene ?? root.getDefaultScene() ?? root.listScenes()[0];

  const packed = new Map<Texture, PackedTexture | null>();
  for (const [i, texture] of root.listTextures().entries()) packed.set(texture, await packTexture(texture, i));
  const used = new Set<PackedTexture>();
  const textureFile = (texture: Texture | null): string | null => {
    const hit = texture ? packed.get(texture) : null;
    if (!hit) return null;
    used.add(hit);
    return hit.file;
  };

  // Collect (node, primitive) pairs first so materials can be named before meshes are written.
  const placements: { node: Node; meshName: string; prims: Primitive[] }[] = [];
  target?.traverse((node) => {
    const mesh = node.getMesh();
    if (mesh) placements.push({ node, meshName: mesh.getName(), prims: mesh.listPrimitives() });
  });
  // USD has no instancing here: each placement writes its mesh out again, so the cap is counted per placement
  // before a line is written (one mesh placed 1,000 times once made a 724 MB file).
  let drawn = 0;
  for (const { prims } of placements) {
    for (const prim of prims) drawn += ((prim.getIndices() ?? prim.getAttribute('POSITION'))?.getCount() ?? 0) / 3;
  }
  if (drawn > maxTriangles) {
    throw new MediaError('model_too_complex', `The model draws more than ${maxTriangles} triangles once its instances are counted.`, {
      cap: 'maxTriangles',
      limit: maxTriangles,
      found: Math.floor(drawn),
    });
  }

  // A primitive with vertex colours gets them as displayColor, and baked into a texture of its own
  // (so a material of its own): its base colour texture times the colours, or without one, an atlas of
  // its triangles. Other primitives share their glTF material's.
  const colored = new Map<Primitive, VertexColoring | null>();
  let baked = 0;
  for (const { prims } of placements) {
    for (const prim of prims) {
      if (colored.has(prim)) continue;
      const colors = readVertexColors(prim);
      const tris = colors && triangleList(prim);
      if (!colors || !tris?.length) {
        colored.set(prim, null);
        continue;
      }
      const material = prim.getMaterial();
      const baseTexture = material?.getBaseColorTexture() ?? null;
      const base = baseTexture ? (packed.get(baseTexture) ?? null) : null;
      if (!base) {
        const atlas = await bakeVertexColors(colors, tris);
        colored.set(prim, { colors, atlas, bake: { file: `textures/vertex_colors_${baked++}.png`, data: atlas.png, mode: 'atlas' } });
        continue;
      }
      const info = material!.getBaseColorTextureInfo();
      const uv = prim.getAttribute(`TEXCOORD_${info?.getTexCoord() ?? 0}`);
      // A transformed texture is sampled away from the raw UVs, so its texels cannot be matched to triangles here.
      const tinted = uv && !info?.getExtension('KHR_texture_transform') ? await bakeIntoTexture(base.data, readAll(uv, 2), colors, tris) : null;
      const bake = tinted ? { file: `textures/vertex_colors_${baked++}.png`, data: tinted, mode: 'texture' as const } : null;
      colored.set(prim, { colors, atlas: null, bake });
    }
  }

  const materialScope = new NameScope();
  const materialPaths = new Map<Material | Primitive | null, string>();
  const materialOrder: { key: Material | Primitive | null; material: Material | null; bake: VertexColorBake | null }[] = [];
  for (const { prims } of placements) {
    for (const prim of prims) {
      const material = prim.getMaterial();
      const bake = colored.get(prim)?.bake ?? null;
      const key = bake ? prim : material;
      if (materialPaths.has(key)) continue;
      const base = material?.getName() ?? 'DefaultMaterial';
      const name = materialScope.take(bake ? `${base}_vertex_colors` : base, 'Material');
      materialPaths.set(key, `/${ROOT}/Materials/${name}`);
      materialOrder.push({ key, material, bake });
    }
  }

  const out = new UsdaText();
  out.line('#usda 1.0');
  out.line('(');
  out.line(`    defaultPrim = ${quote(ROOT)}`);
  out.line('    doc = "Generated by Plinth"');
  out.line('    metersPerUnit = 1');
  out.line('    upAxis = "Y"');
  out.line(')');
  out.blank();
  out.open(`def Xform ${quote(ROOT)}`, ['kind = "component"']);

  out.open('def Scope "Materials"');
  for (const { key, material, bake } of materialOrder) {
    const path = materialPaths.get(key)!;
    writeMaterial(out, path.slice(path.lastIndexOf('/') + 1), path, material, textureFile, bake);
  }
  out.close();

  const meshScope = new NameScope();
  meshScope.take('Materials', 'Materials');
  let meshes = 0;
  let triangles = 0;
  for (const { node, meshName, prims } of placements) {
    const world = node.getWorldMatrix();
    for (const [i, prim] of prims.entries()) {
      const material = prim.getMaterial();
      const vertexColors = colored.get(prim) ?? null;
      const base = node.getName() || meshName || 'Mesh';
      const written = writeMesh(out, {
        name: meshScope.take(prims.length > 1 ? `${base}_${i}` : base, 'Mesh'),
        prim,
        world,
        materialPath: materialPaths.get(vertexColors?.bake ? prim : material)!,
        doubleSided: material?.getDoubleSided() ?? false,
        texCoordSets: materialTexCoordSets(material),
        vertexColors,
      });
      if (written > 0) {
        meshes++;
        triangles += written;
      }
    }
  }
  out.close();

  const layer = out.toBuffer();
  const entries: ZipEntry[] = [{ name: USDZ_LAYER_NAME, data: layer }];
  for (const tex of used) entries.push({ name: tex.file, data: tex.data });
  for (const c of colored.values()) if (c?.bake) entries.push({ name: c.bake.file, data: c.bake.data });
  return { usdz: writeAlignedZip(entries), layer, meshes, triangles, textures: used.size + baked };
}
