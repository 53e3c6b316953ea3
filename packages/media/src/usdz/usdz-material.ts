import type { Material, Texture, TextureInfo } from '@gltf-transform/core';
import type { EmissiveStrength, Transform, Transmission } from '@gltf-transform/extensions';
import { num, quote, tuple, type UsdaText } from './usdz-usda.js';
import { VERTEX_COLOR_PRIMVAR } from './usdz-vertex-colors.js';

// glTF metallic-roughness → UsdPreviewSurface. Factors multiply textures in glTF;
// UsdUVTexture's `scale` input does the same, so each factor rides on its texture.

type Vec4 = [number, number, number, number];

interface TextureSlot {
  name: string;
  file: string;
  info: TextureInfo | null;
  colorSpace: 'sRGB' | 'raw';
  scale: Vec4;
  bias?: Vec4;
  outputs: string[];
  /** A texcoord primvar of the writer's own (the vertex-colour atlas) instead of the glTF set. */
  primvar?: string;
}

const WRAP: Record<number, string> = { 33071: 'clamp', 33648: 'mirror', 10497: 'repeat' };

/**
 * How much of a fully transmissive surface stays visible. UsdPreviewSurface has no
 * transmission, only opacity, and opacity fades reflections too: a goblet at opacity 0
 * would vanish, so full transmission maps to opacity 0.2 (see docs/decisions.md).
 */
export const TRANSMISSION_MIN_OPACITY = 0.2;

/** Opacity standing in for KHR_materials_transmission's factor. */
export function transmissionOpacity(transmission: number): number {
  return 1 - Math.min(1, Math.max(0, transmission)) * (1 - TRANSMISSION_MIN_OPACITY);
}

/**
 * A primitive's COLOR_0 baked into a texture: `atlas`, one cell per triangle read through the
 * mesh's vertexColorSt (in place of a base colour texture the material lacks), or `texture`, the
 * base colour texture with the colours multiplied in (same UVs, so it simply replaces the file).
 */
export interface VertexColorBake {
  file: string;
  data: Uint8Array;
  mode: 'atlas' | 'texture';
}

/** Which texcoord sets a material reads, so meshes export exactly those primvars. */
export function primvarName(set: number): string {
  return set === 0 ? 'st' : `st${set}`;
}

function texCoordOf(info: TextureInfo | null): { set: number; transform: Transform | null } {
  const transform = info?.getExtension<Transform>('KHR_texture_transform') ?? null;
  return { set: transform?.getTexCoord() ?? info?.getTexCoord() ?? 0, transform };
}

/**
 * Writes `def Material "<name>"` at the current nesting. `path` is the material's
 * absolute prim path (connections must be absolute or relative; absolute is clearer).
 * `bake` is a primitive's COLOR_0 baked into a texture, which the base colour reads (times
 * baseColorFactor, as glTF multiplies them).
 */
export function writeMaterial(
  out: UsdaText,
  name: string,
  path: string,
  material: Material | null,
  textureFile: (texture: Texture | null) => string | null,
  bake: VertexColorBake | null = null,
): void {
  const slots: TextureSlot[] = [];
  const inputs: string[] = [];
  const connect = (slot: TextureSlot, output: string) => `${path}/${slot.name}.outputs:${output}`;
  const addSlot = (slot: Omit<TextureSlot, 'file'>, texture: Texture | null, own: string | null = null): TextureSlot | null => {
    const file = own ?? textureFile(texture);
    if (!file) return null;
    const full = { ...slot, file };
    slots.push(full);
    return full;
  };

  const baseColor = (material?.getBaseColorFactor() ?? [1, 1, 1, 1]) as Vec4;
  const metallic = material?.getMetallicFactor() ?? 1;
  const roughness = material?.getRoughnessFactor() ?? 1;
  const alphaMode = material?.getAlphaMode() ?? 'OPAQUE';
  const unlit = material?.getExtension('KHR_materials_unlit') != null;

  const transmission = material?.getExtension<Transmission>('KHR_materials_transmission')?.getTransmissionFactor() ?? 0;
  // A cut-out stays a cut-out: glTF masks before transmission, and a masked surface is opaque where it shows.
  const seeThrough = alphaMode === 'MASK' ? 1 : transmissionOpacity(transmission);

  const textureSlot = addSlot(
    {
      name: 'BaseColorTexture',
      info: material?.getBaseColorTextureInfo() ?? null,
      colorSpace: 'sRGB',
      scale: [baseColor[0], baseColor[1], baseColor[2], baseColor[3] * seeThrough],
      outputs: ['float3 outputs:rgb', 'float outputs:a'],
    },
    material?.getBaseColorTexture() ?? null,
    bake?.mode === 'texture' ? bake.file : null,
  );
  const baseSlot =
    textureSlot ??
    (bake?.mode === 'atlas'
      ? addSlot(
          { name: 'VertexColorTexture', info: null, colorSpace: 'sRGB', scale: baseColor, outputs: ['float3 outputs:rgb'], primvar: VERTEX_COLOR_PRIMVAR },
          null,
          bake.file,
        )
      : null);
  // Unlit has no UsdPreviewSurface equivalent; emitting the colour on a black
  // diffuse makes it self-lit, which is the closest visual match.
  const colorInput = unlit ? 'emissiveColor' : 'diffuseColor';
  if (unlit) inputs.push(`color3f inputs:diffuseColor = (0, 0, 0)`);
  if (baseSlot) inputs.push(`color3f inputs:${colorInput}.connect = <${connect(baseSlot, 'rgb')}>`);
  else inputs.push(`color3f inputs:${colorInput} = ${tuple(baseColor.slice(0, 3))}`);

  // Opacity: BLEND from alpha (times the transmission stand-in), MASK from alpha with its
  // cutoff, OPAQUE ignores alpha (glTF) and is see-through only when transmissive.
  if (alphaMode === 'OPAQUE' && seeThrough < 1) inputs.push(`float inputs:opacity = ${num(seeThrough)}`);
  if (alphaMode !== 'OPAQUE') {
    if (textureSlot) inputs.push(`float inputs:opacity.connect = <${connect(textureSlot, 'a')}>`);
    else inputs.push(`float inputs:opacity = ${num(baseColor[3] * seeThrough)}`);
  }
  if (alphaMode === 'MASK') inputs.push(`float inputs:opacityThreshold = ${num(material?.getAlphaCutoff() ?? 0.5)}`);
  else if (alphaMode === 'BLEND' || seeThrough < 1) inputs.push('float inputs:opacityThreshold = 0');

  if (!unlit) {
    const mrSlot = addSlot(
      // glTF packs roughness in G and metallic in B.
      { name: 'MetallicRoughnessTexture', info: material?.getMetallicRoughnessTextureInfo() ?? null, colorSpace: 'raw', scale: [1, roughness, metallic, 1], outputs: ['float outputs:g', 'float outputs:b'] },
      material?.getMetallicRoughnessTexture() ?? null,
    );
    if (mrSlot) {
      inputs.push(`float inputs:metallic.connect = <${connect(mrSlot, 'b')}>`);
      inputs.push(`float inputs:roughness.connect = <${connect(mrSlot, 'g')}>`);
    } else {
      inputs.push(`float inputs:metallic = ${num(metallic)}`);
      inputs.push(`float inputs:roughness = ${num(roughness)}`);
    }

    // Tangent-space normals are stored as 0..1; glTF's normal scale applies to X and Y only.
    const s = material?.getNormalScale() ?? 1;
    const normalSlot = addSlot(
      { name: 'NormalTexture', info: material?.getNormalTextureInfo() ?? null, colorSpace: 'raw', scale: [2 * s, 2 * s, 2, 1], bias: [-s, -s, -1, 0], outputs: ['float3 outputs:rgb'] },
      material?.getNormalTexture() ?? null,
    );
    if (normalSlot) inputs.push(`normal3f inputs:normal.connect = <${connect(normalSlot, 'rgb')}>`);

    // occlusion = 1 + strength * (sample - 1)
    const k = material?.getOcclusionStrength() ?? 1;
    const aoSlot = addSlot(
      { name: 'OcclusionTexture', info: material?.getOcclusionTextureInfo() ?? null, colorSpace: 'raw', scale: [k, k, k, 1], bias: [1 - k, 1 - k, 1 - k, 0], outputs: ['float outputs:r'] },
      material?.getOcclusionTexture() ?? null,
    );
    if (aoSlot) inputs.push(`float inputs:occlusion.connect = <${connect(aoSlot, 'r')}>`);

    const strength = material?.getExtension<EmissiveStrength>('KHR_materials_emissive_strength')?.getEmissiveStrength() ?? 1;
    const emissive = (material?.getEmissiveFactor() ?? [0, 0, 0]).map((v) => v * strength);
    const emissiveSlot = emissive.some((v) => v > 0)
      ? addSlot(
          { name: 'EmissiveTexture', info: material?.getEmissiveTextureInfo() ?? null, colorSpace: 'sRGB', scale: [emissive[0], emissive[1], emissive[2], 1], outputs: ['float3 outputs:rgb'] },
          material?.getEmissiveTexture() ?? null,
        )
      : null;
    if (emissiveSlot) inputs.push(`color3f inputs:emissiveColor.connect = <${connect(emissiveSlot, 'rgb')}>`);
    else if (emissive.some((v) => v > 0)) inputs.push(`color3f inputs:emissiveColor = ${tuple(emissive)}`);
  }

  out.open(`def Material ${quote(name)}`);
  out.line(`token outputs:surface.connect = <${path}/PreviewSurface.outputs:surface>`);
  out.open('def Shader "PreviewSurface"');
  out.line('uniform token info:id = "UsdPreviewSurface"');
  for (const input of inputs) out.line(input);
  out.line('int inputs:useSpecularWorkflow = 0');
  out.line('token outputs:surface');
  out.close();

  const readers = new Set<string>();
  for (const slot of slots) {
    const { set, transform } = texCoordOf(slot.info);
    const primvar = slot.primvar ?? primvarName(set);
    const reader = `PrimvarReader_${primvar}`;
    if (!readers.has(primvar)) {
      readers.add(primvar);
      out.open(`def Shader ${quote(reader)}`);
      out.line('uniform token info:id = "UsdPrimvarReader_float2"');
      out.line(`string inputs:varname = ${quote(primvar)}`);
      out.line('float2 inputs:fallback = (0, 0)');
      out.line('float2 outputs:result');
      out.close();
    }
    let stSource = `${path}/${reader}.outputs:result`;
    if (transform && !isIdentity(transform)) {
      const name = `${slot.name}Transform`;
      writeTransform2d(out, name, stSource, transform);
      stSource = `${path}/${name}.outputs:result`;
    }
    out.open(`def Shader ${quote(slot.name)}`);
    out.line('uniform token info:id = "UsdUVTexture"');
    out.line(`asset inputs:file = @${slot.file}@`);
    out.line(`float2 inputs:st.connect = <${stSource}>`);
    out.line(`token inputs:sourceColorSpace = ${quote(slot.colorSpace)}`);
    // The atlas is clamped: a cell on its border must not blend with the opposite border.
    const wrap = (mode: number | undefined) => (slot.primvar ? 'clamp' : (WRAP[mode ?? 10497] ?? 'repeat'));
    out.line(`token inputs:wrapS = ${quote(wrap(slot.info?.getWrapS()))}`);
    out.line(`token inputs:wrapT = ${quote(wrap(slot.info?.getWrapT()))}`);
    out.line(`float4 inputs:scale = ${tuple(slot.scale)}`);
    if (slot.bias) out.line(`float4 inputs:bias = ${tuple(slot.bias)}`);
    for (const output of slot.outputs) out.line(output);
    out.close();
  }
  out.close();
}

function isIdentity(t: Transform): boolean {
  const [ox, oy] = t.getOffset();
  const [sx, sy] = t.getScale();
  return ox === 0 && oy === 0 && sx === 1 && sy === 1 && t.getRotation() === 0;
}

/**
 * KHR_texture_transform maps uv' = T·R·S·uv in glTF's top-left UV space. Our st is
 * (u, 1 − v), so conjugating by that flip gives an equivalent UsdTransform2d with
 * the same scale, the same angle (now counter-clockwise in st), and translation
 * (tx + sin r·sy, 1 − ty − cos r·sy).
 */
function writeTransform2d(out: UsdaText, name: string, source: string, t: Transform): void {
  const [tx, ty] = t.getOffset();
  const [sx, sy] = t.getScale();
  const r = t.getRotation();
  out.open(`def Shader ${quote(name)}`);
  out.line('uniform token info:id = "UsdTransform2d"');
  out.line(`float2 inputs:in.connect = <${source}>`);
  out.line(`float inputs:rotation = ${num((r * 180) / Math.PI)}`);
  out.line(`float2 inputs:scale = ${tuple([sx, sy])}`);
  out.line(`float2 inputs:translation = ${tuple([tx + Math.sin(r) * sy, 1 - ty - Math.cos(r) * sy])}`);
  out.line('float2 outputs:result');
  out.close();
}

/** Texcoord sets a material samples; meshes bound to it must carry these primvars. */
export function materialTexCoordSets(material: Material | null): Set<number> {
  const sets = new Set<number>([0]);
  if (!material) return sets;
  const infos = [
    material.getBaseColorTextureInfo(),
    material.getMetallicRoughnessTextureInfo(),
    material.getNormalTextureInfo(),
    material.getOcclusionTextureInfo(),
    material.getEmissiveTextureInfo(),
  ];
  for (const info of infos) if (info) sets.add(texCoordOf(info).set);
  return sets;
}
