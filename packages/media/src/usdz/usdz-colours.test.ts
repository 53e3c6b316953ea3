import { KHRMaterialsTransmission } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { boxDocument, gradientPng } from '../gltf/model-fixtures.test-support.js';
import { balanced, materialBlock, meshAttr, parseMeshes, shaderInput, srgbByte } from './usdz-layer.test-support.js';
import { writeUsdz, type UsdzOutput } from './usdz-writer.js';
import { listZipEntries } from './usdz-zip.js';

// What glTF carries beyond geometry and textures, as USDZ (AR Quick Look) can show it: vertex colours baked
// into a texture the material reads (and kept as displayColor), transmission and alpha as opacity.

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
