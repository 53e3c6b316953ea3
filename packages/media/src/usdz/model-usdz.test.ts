import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { KHRMaterialsTransmission, KHRTextureTransform } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { boxDocument, boxGeometry, gradientPng } from '../gltf/model-fixtures.test-support.js';
import { writeUsdz, type UsdzOutput } from './usdz-writer.js';
import { listZipEntries, writeAlignedZip } from './usdz-zip.js';

const hasUnzip = spawnSync('unzip', ['-v']).status === 0;
// Pixar's usdcat/usdchecker (and the pxr Python module) are not installed here, so the
// layer is checked structurally: balanced, well-formed topology, expected values.

/** Runs `unzip -t` and `unzip -l` on the archive; returns the listed names. */
function unzipList(zip: Buffer): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'usdz-test-'));
  try {
    const file = join(dir, 'model.usdz');
    writeFileSync(file, zip);
    execFileSync('unzip', ['-tq', file]);
    const listing = execFileSync('unzip', ['-Z1', file]).toString();
    return listing.split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Brackets balance outside strings and @asset@ paths, with matching kinds. */
function balanced(text: string): boolean {
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (ch === '@') {
      i = text.indexOf('@', i + 1);
      if (i < 0) return false;
    } else if (ch === '(' || ch === '[' || ch === '{') stack.push(ch);
    else if (ch in pairs && stack.pop() !== pairs[ch]) return false;
  }
  return stack.length === 0;
}

const numbers = (s: string) => (s.match(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi) ?? []).map(Number);

interface ParsedMesh {
  name: string;
  counts: number[];
  indices: number[];
  points: number[];
  normals: number[] | null;
  st: number[] | null;
  binding: string;
}

function parseMeshes(layer: string): ParsedMesh[] {
  const out: ParsedMesh[] = [];
  const re = /def Mesh "([^"]+)"[\s\S]*?\n(\s*)\{\n([\s\S]*?)\n\2\}/g;
  for (const m of layer.matchAll(re)) {
    const body = m[3];
    const arr = (decl: string) => {
      const hit = new RegExp(`${decl.replace(/[[\]]/g, '\\$&')} = (\\[[^\\]]*\\])`).exec(body);
      return hit ? numbers(hit[1]) : null;
    };
    out.push({
      name: m[1],
      counts: arr('int[] faceVertexCounts') ?? [],
      indices: arr('int[] faceVertexIndices') ?? [],
      points: arr('point3f[] points') ?? [],
      normals: arr('normal3f[] normals'),
      st: arr('texCoord2f[] primvars:st'),
      binding: /rel material:binding = <([^>]+)>/.exec(body)?.[1] ?? '',
    });
  }
  return out;
}

function shaderInput(layer: string, shader: string, input: string): number[] {
  const block = new RegExp(`def Shader "${shader}"\\s*\\{([^}]*)\\}`).exec(layer)?.[1] ?? '';
  const hit = new RegExp(`inputs:${input} = ([^\\n]+)`).exec(block);
  if (!hit) throw new Error(`no ${shader}.inputs:${input}`);
  return numbers(hit[1]);
}

describe('writeUsdz', () => {
  let out: UsdzOutput;
  let layer: string;
  const transform = { offset: [0.25, 0.5] as [number, number], rotation: 0.3, scale: [2, 0.5] as [number, number] };

  beforeAll(async () => {
    const { doc, node, material } = boxDocument({ meshSize: [0.4, 0.3, 0.2], texture: await gradientPng(128), nodeTranslation: [0, 0.15, 0] });
    node.setRotation([0, Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8)]);
    const ext = doc.createExtension(KHRTextureTransform);
    material.getBaseColorTextureInfo()!.setExtension(
      'KHR_texture_transform',
      ext.createTransform().setOffset(transform.offset).setRotation(transform.rotation).setScale(transform.scale),
    );
    // A mirrored copy (negative determinant) with a translucent material, plus a primitive with no material.
    const glass = doc.createMaterial('glass!').setAlphaMode('BLEND').setBaseColorFactor([0.2, 0.4, 0.6, 0.5]).setDoubleSided(true);
    const mesh = node.getMesh()!;
    const mirroredMesh = doc.createMesh('mirrored');
    for (const mat of [glass, null]) {
      const prim = mesh.listPrimitives()[0].clone().setMaterial(mat);
      mirroredMesh.addPrimitive(prim);
    }
    const mirror = doc.createNode('1 mirror image').setMesh(mirroredMesh).setScale([-1, 1, 1]).setTranslation([1, 0, 0]);
    doc.getRoot().listScenes()[0].addChild(mirror);
    out = await writeUsdz(doc);
    layer = out.layer.toString('utf8');
  });

  it('is a valid zip: layer first, stored, every file 64-byte aligned, CRCs right', () => {
    const entries = listZipEntries(out.usdz);
    expect(entries.map((e) => e.name)).toEqual(['model.usda', 'textures/texture_0.png']);
    for (const e of entries) {
      expect(e.method).toBe(0);
      expect(e.dataOffset % 64).toBe(0);
      expect(e.crc).toBe(crc32(out.usdz.subarray(e.dataOffset, e.dataOffset + e.size)) >>> 0);
    }
    expect(out.usdz.subarray(entries[0].dataOffset, entries[0].dataOffset + entries[0].size).toString()).toBe(layer);
    if (hasUnzip) expect(unzipList(out.usdz)).toEqual(['model.usda', 'textures/texture_0.png']);
  });

  it('writes a balanced USDA layer with the stage metadata Quick Look needs', () => {
    expect(layer.startsWith('#usda 1.0\n')).toBe(true);
    expect(layer).toContain('defaultPrim = "Root"');
    expect(layer).toContain('metersPerUnit = 1');
    expect(layer).toContain('upAxis = "Y"');
    expect(layer).toMatch(/def Xform "Root" \(\n\s+kind = "component"\n\s*\)/);
    expect(balanced(layer)).toBe(true);
    expect(balanced('def X { ( ] }')).toBe(false);
  });

  it('emits one Mesh per primitive placement, with consistent topology', () => {
    const meshes = parseMeshes(layer);
    expect(meshes).toHaveLength(3);
    expect(out.meshes).toBe(3);
    expect(out.triangles).toBe(36);
    expect(meshes.map((m) => m.name)).toEqual(['Box', '_1_mirror_image_0', '_1_mirror_image_1']);
    for (const m of meshes) {
      expect(m.counts).toHaveLength(12);
      expect(m.counts.every((c) => c === 3)).toBe(true);
      expect(m.indices).toHaveLength(36);
      expect(Math.max(...m.indices)).toBeLessThan(m.points.length / 3);
      expect(m.normals).toHaveLength(m.points.length);
    }
    expect(meshes.map((m) => m.binding)).toEqual(['/Root/Materials/Painted_Wood', '/Root/Materials/glass', '/Root/Materials/DefaultMaterial']);
  });

  it('bakes world transforms and keeps faces pointing along their normals, even when mirrored', () => {
    for (const m of parseMeshes(layer)) {
      for (let t = 0; t < m.indices.length; t += 3) {
        const [a, b, c] = [m.indices[t], m.indices[t + 1], m.indices[t + 2]].map((i) => m.points.slice(i * 3, i * 3 + 3));
        const e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        const e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        const face = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
        const n = m.normals!.slice(m.indices[t] * 3, m.indices[t] * 3 + 3);
        expect(face[0] * n[0] + face[1] * n[1] + face[2] * n[2]).toBeGreaterThan(0);
      }
    }
    const [box, mirrored] = parseMeshes(layer);
    const ys = box.points.filter((_, i) => i % 3 === 1);
    expect(Math.min(...ys)).toBeCloseTo(0, 5);
    expect(Math.max(...ys)).toBeCloseTo(0.3, 5);
    const xs = mirrored.points.filter((_, i) => i % 3 === 0);
    expect(Math.min(...xs)).toBeCloseTo(0.8, 5);
    expect(Math.max(...xs)).toBeCloseTo(1.2, 5);
  });

  it('flips V for primvars:st', () => {
    const uvs = boxGeometry([1, 1, 1]).uvs;
    const st = parseMeshes(layer)[0].st!;
    expect(st).toHaveLength(uvs.length);
    for (let i = 0; i < uvs.length; i += 2) {
      expect(st[i]).toBeCloseTo(uvs[i], 6);
      expect(st[i + 1]).toBeCloseTo(1 - uvs[i + 1], 6);
    }
  });

  it('maps materials to UsdPreviewSurface with the texture packed in the archive', () => {
    expect(layer).toContain('uniform token info:id = "UsdPreviewSurface"');
    expect(layer).toContain('uniform token info:id = "UsdPrimvarReader_float2"');
    expect(layer).toContain('string inputs:varname = "st"');
    expect(layer).toMatch(/color3f inputs:diffuseColor.connect = <\/Root\/Materials\/Painted_Wood\/BaseColorTexture.outputs:rgb>/);
    expect(layer).toContain('asset inputs:file = @textures/texture_0.png@');
    expect(shaderInput(layer, 'PreviewSurface', 'roughness')[0]).toBeCloseTo(0.6, 6);
    expect(layer).toMatch(/float inputs:opacity = 0\.5/);
    expect(layer).toMatch(/color3f inputs:diffuseColor = \(0\.2, 0\.4, 0\.6\)/);
    expect((layer.match(/uniform bool doubleSided = 1/g) ?? []).length).toBe(1);
    for (const asset of layer.matchAll(/@([^@]+)@/g)) expect(listZipEntries(out.usdz).map((e) => e.name)).toContain(asset[1]);
  });

  it('converts KHR_texture_transform into an equivalent UsdTransform2d in flipped st space', () => {
    const rotation = shaderInput(layer, 'BaseColorTextureTransform', 'rotation')[0];
    const scale = shaderInput(layer, 'BaseColorTextureTransform', 'scale');
    const translation = shaderInput(layer, 'BaseColorTextureTransform', 'translation');
    const { offset, rotation: r, scale: s } = transform;
    for (const [u, v] of [[0, 0], [1, 0], [0, 1], [0.3, 0.7]]) {
      // glTF (spec): uv' = T · R · S · uv with R = [[cos, sin], [−sin, cos]]
      const su = s[0] * u, sv = s[1] * v;
      const gu = Math.cos(r) * su + Math.sin(r) * sv + offset[0];
      const gv = -Math.sin(r) * su + Math.cos(r) * sv + offset[1];
      // USD: st' = rotate_ccw(scale · st) + translation, with st = (u, 1 − v)
      const rad = (rotation * Math.PI) / 180;
      const x = scale[0] * u, y = scale[1] * (1 - v);
      const su2 = Math.cos(rad) * x - Math.sin(rad) * y + translation[0];
      const sv2 = Math.sin(rad) * x + Math.cos(rad) * y + translation[1];
      expect(su2).toBeCloseTo(gu, 5);
      expect(sv2).toBeCloseTo(1 - gv, 5);
    }
  });
});

describe('writeAlignedZip', () => {
  it('aligns data for every header length, including paddings too small for an extra field', () => {
    const entries = Array.from({ length: 70 }, (_, i) => ({ name: `f${'x'.repeat(i)}.bin`, data: Buffer.alloc(i * 7 + 1, i) }));
    const zip = writeAlignedZip(entries);
    const listed = listZipEntries(zip);
    expect(listed.map((e) => e.name)).toEqual(entries.map((e) => e.name));
    for (const [i, e] of listed.entries()) {
      expect(e.dataOffset % 64).toBe(0);
      expect(zip.subarray(e.dataOffset, e.dataOffset + e.size).equals(entries[i].data)).toBe(true);
    }
    if (hasUnzip) expect(unzipList(zip)).toHaveLength(70);
  });

  it('refuses unsafe or duplicate names', () => {
    expect(() => writeAlignedZip([{ name: '../evil.usda', data: Buffer.alloc(1) }])).toThrow(/unsafe/);
    expect(() => writeAlignedZip([{ name: '/abs.usda', data: Buffer.alloc(1) }])).toThrow(/unsafe/);
    expect(() => writeAlignedZip([{ name: 'a.png', data: Buffer.alloc(1) }, { name: 'a.png', data: Buffer.alloc(1) }])).toThrow(/duplicate/);
  });
});

/** The text of one `def Material` (up to the next one), for reading its shaders' inputs. */
function materialBlock(layer: string, name: string): string {
  const start = layer.indexOf(`def Material "${name}"`);
  if (start < 0) throw new Error(`no material ${name}`);
  const next = layer.indexOf('def Material "', start + 1);
  return layer.slice(start, next < 0 ? undefined : next);
}

function meshAttr(layer: string, mesh: string, decl: string): number[] | null {
  const block = new RegExp(`def Mesh "${mesh}"[\\s\\S]*?\\n(\\s*)\\{\\n([\\s\\S]*?)\\n\\1\\}`).exec(layer)?.[2] ?? '';
  const hit = new RegExp(`${decl.replace(/[[\]]/g, '\\$&')} = (\\[[^\\]]*\\])`).exec(block);
  return hit ? numbers(hit[1]) : null;
}

const srgbByte = (c: number) => Math.round((c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055) * 255);

describe('writeUsdz: vertex colours, transmission and alpha', () => {
  let out: UsdzOutput;
  let layer: string;
  // One colour per box face (four vertices each), so every triangle is one flat colour.
  const faceColors = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [0.2, 0.2, 0.2]];
  const colors = new Float32Array(faceColors.flatMap((c) => [c, c, c, c].flat()));

  beforeAll(async () => {
    const { doc, node, material } = boxDocument({ meshSize: [0.2, 0.2, 0.2] });
    material.setName('Parrot').setBaseColorFactor([0.5, 1, 1, 1]);
    const prim = node.getMesh()!.listPrimitives()[0];
    const buffer = doc.getRoot().listBuffers()[0];
    prim.setAttribute('COLOR_0', doc.createAccessor('color', buffer).setType('VEC3').setArray(colors));
    const scene = doc.getRoot().listScenes()[0];
    // The same coloured primitive placed mirrored: its atlas coordinates must follow the swapped corners.
    scene.addChild(doc.createNode('Mirror').setMesh(node.getMesh()).setScale([-1, 1, 1]).setTranslation([1, 0, 0]));

    const transmission = doc.createExtension(KHRMaterialsTransmission);
    const add = (name: string, material: ReturnType<typeof doc.createMaterial>, x: number) => {
      const p = prim.clone().setMaterial(material);
      p.setAttribute('COLOR_0', null);
      scene.addChild(doc.createNode(name).setMesh(doc.createMesh(name).addPrimitive(p)).setTranslation([x, 0, 0]));
    };
    add('Goblet', doc.createMaterial('Glass').setRoughnessFactor(0).setExtension('KHR_materials_transmission', transmission.createTransmission().setTransmissionFactor(1)), 2);
    add('Half', doc.createMaterial('HalfGlass').setExtension('KHR_materials_transmission', transmission.createTransmission().setTransmissionFactor(0.5)), 3);
    add('Veil', doc.createMaterial('Veil').setAlphaMode('BLEND').setBaseColorFactor([1, 1, 1, 0.4]), 4);
    add('Leaf', doc.createMaterial('Leaf').setAlphaMode('MASK').setAlphaCutoff(0.3).setBaseColorFactor([0, 1, 0, 0.8]), 5);
    const white = prim.clone().setMaterial(doc.createMaterial('Plain'));
    white.setAttribute('COLOR_0', doc.createAccessor('white', buffer).setType('VEC3').setArray(new Float32Array(colors.length).fill(1)));
    scene.addChild(doc.createNode('White').setMesh(doc.createMesh('white').addPrimitive(white)).setTranslation([6, 0, 0]));
    out = await writeUsdz(doc);
    layer = out.layer.toString('utf8');
  });

  it('carries COLOR_0 as a vertex displayColor primvar, linear, one per point', () => {
    const display = meshAttr(layer, 'Box', 'color3f[] primvars:displayColor')!;
    const points = meshAttr(layer, 'Box', 'point3f[] points')!;
    expect(display).toHaveLength(points.length);
    expect(display).toEqual(Array.from(colors).map((v) => Number(v.toPrecision(7))));
    expect(layer).toMatch(/color3f\[\] primvars:displayColor = \[[^\]]*\] \(\n\s*interpolation = "vertex"/);
    // All-white vertex colours are no tint: nothing baked, no displayColor.
    expect(meshAttr(layer, 'White', 'color3f[] primvars:displayColor')).toBeNull();
    expect(balanced(layer)).toBe(true);
  });

  it("binds a material that reads the baked colours, times baseColorFactor", () => {
    const meshes = parseMeshes(layer);
    expect(meshes.find((m) => m.name === 'Box')!.binding).toBe('/Root/Materials/Parrot_vertex_colors');
    expect(meshes.find((m) => m.name === 'Mirror')!.binding).toBe('/Root/Materials/Parrot_vertex_colors');
    const block = materialBlock(layer, 'Parrot_vertex_colors');
    expect(block).toContain('color3f inputs:diffuseColor.connect = </Root/Materials/Parrot_vertex_colors/VertexColorTexture.outputs:rgb>');
    expect(block).toContain('string inputs:varname = "vertexColorSt"');
    expect(block).toContain('asset inputs:file = @textures/vertex_colors_0.png@');
    expect(shaderInput(block, 'VertexColorTexture', 'scale')).toEqual([0.5, 1, 1, 1]);
    expect(listZipEntries(out.usdz).map((e) => e.name)).toEqual(['model.usda', 'textures/vertex_colors_0.png']);
    expect(out.textures).toBe(1);
  });

  it('bakes each triangle so that its corners sample their own vertex colour, mirrored or not', async () => {
    const entry = listZipEntries(out.usdz).find((e) => e.name === 'textures/vertex_colors_0.png')!;
    const png = out.usdz.subarray(entry.dataOffset, entry.dataOffset + entry.size);
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    for (const name of ['Box', 'Mirror']) {
      const indices = meshAttr(layer, name, 'int[] faceVertexIndices')!;
      const st = meshAttr(layer, name, 'texCoord2f[] primvars:vertexColorSt')!;
      expect(st).toHaveLength(indices.length * 2);
      for (let corner = 0; corner < indices.length; corner++) {
        const x = Math.floor(st[corner * 2] * info.width);
        const y = Math.floor((1 - st[corner * 2 + 1]) * info.height);
        const texel = Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3));
        const vertex = Array.from(colors.subarray(indices[corner] * 3, indices[corner] * 3 + 3));
        expect(texel).toEqual(vertex.map(srgbByte));
      }
    }
    expect(layer).toMatch(/primvars:vertexColorSt = \[[^\]]*\] \(\n\s*interpolation = "faceVarying"/);
  });

  it('maps transmission to an opacity below 1 that keeps the glass visible', () => {
    const glass = materialBlock(layer, 'Glass');
    expect(shaderInput(glass, 'PreviewSurface', 'opacity')).toEqual([0.2]);
    expect(shaderInput(glass, 'PreviewSurface', 'opacityThreshold')).toEqual([0]);
    expect(shaderInput(materialBlock(layer, 'HalfGlass'), 'PreviewSurface', 'opacity')).toEqual([0.6]);
    expect(materialBlock(layer, 'Parrot_vertex_colors')).not.toContain('opacity');
  });

  it('maps BLEND to opacity from alpha and MASK to opacityThreshold at the cutoff', () => {
    const veil = materialBlock(layer, 'Veil');
    expect(shaderInput(veil, 'PreviewSurface', 'opacity')).toEqual([0.4]);
    expect(shaderInput(veil, 'PreviewSurface', 'opacityThreshold')).toEqual([0]);
    const leaf = materialBlock(layer, 'Leaf');
    expect(shaderInput(leaf, 'PreviewSurface', 'opacity')).toEqual([0.8]);
    expect(shaderInput(leaf, 'PreviewSurface', 'opacityThreshold')).toEqual([0.3]);
  });
});

describe('writeUsdz: vertex colours over a base colour texture', () => {
  const faceColors = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [0.5, 0.5, 0.5]];

  async function texturedBox(tiled: boolean) {
    const { doc, node } = boxDocument({ meshSize: [0.2, 0.2, 0.2], texture: await gradientPng(96) });
    const prim = node.getMesh()!.listPrimitives()[0];
    // Each face gets its own cell of a 3×2 grid of the texture (or, tiled, the texture twice over).
    const uv = prim.getAttribute('TEXCOORD_0')!;
    const cells = new Float32Array(uv.getCount() * 2);
    for (let i = 0; i < uv.getCount(); i++) {
      const [u, v] = uv.getElement(i, [0, 0]);
      const f = Math.floor(i / 4);
      cells.set(tiled ? [u * 2, v * 2] : [((f % 3) + u) / 3, (Math.floor(f / 3) + v) / 2], i * 2);
    }
    uv.setArray(cells);
    const colors = new Float32Array(faceColors.flatMap((c) => [c, c, c, c].flat()));
    prim.setAttribute('COLOR_0', doc.createAccessor('color', doc.getRoot().listBuffers()[0]).setType('VEC3').setArray(colors));
    return doc;
  }

  const file = (out: UsdzOutput, name: string) => {
    const e = listZipEntries(out.usdz).find((x) => x.name === name)!;
    return out.usdz.subarray(e.dataOffset, e.dataOffset + e.size);
  };
  const toLinear = (b: number) => (b / 255 <= 0.04045 ? b / 255 / 12.92 : Math.pow((b / 255 + 0.055) / 1.055, 2.4));

  it('multiplies the colours into a copy of the texture, which the primitive\'s own material reads with the same UVs', async () => {
    const out = await writeUsdz(await texturedBox(false));
    const layer = out.layer.toString('utf8');
    expect(listZipEntries(out.usdz).map((e) => e.name)).toEqual(['model.usda', 'textures/vertex_colors_0.png']);
    const block = materialBlock(layer, 'Painted_Wood_vertex_colors');
    expect(block).toContain('asset inputs:file = @textures/vertex_colors_0.png@');
    expect(block).toContain('string inputs:varname = "st"');
    expect(meshAttr(layer, 'Box', 'color3f[] primvars:displayColor')).toHaveLength(24 * 3);

    const original = await sharp(await gradientPng(96)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const baked = await sharp(file(out, 'textures/vertex_colors_0.png')).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([baked.info.width, baked.info.height]).toEqual([96, 96]);
    for (const [f, color] of faceColors.entries()) {
      // The centre of the face's cell, well inside its two triangles.
      const x = Math.floor((((f % 3) + 0.5) / 3) * 96);
      const y = Math.floor(((Math.floor(f / 3) + 0.5) / 2) * 96);
      const at = (y * 96 + x) * 4;
      for (let k = 0; k < 3; k++) {
        const want = toLinear(original.data[at + k]) * color[k];
        // One 8-bit sRGB step is at most about 0.009 in linear.
        expect(Math.abs(toLinear(baked.data[at + k]) - want)).toBeLessThan(0.01);
      }
    }
  });

  it('keeps the texture and carries only displayColor when the UVs tile the texture', async () => {
    const out = await writeUsdz(await texturedBox(true));
    const layer = out.layer.toString('utf8');
    expect(listZipEntries(out.usdz).map((e) => e.name)).toEqual(['model.usda', 'textures/texture_0.png']);
    expect(parseMeshes(layer)[0].binding).toBe('/Root/Materials/Painted_Wood');
    expect(meshAttr(layer, 'Box', 'color3f[] primvars:displayColor')).toHaveLength(24 * 3);
  });
});
