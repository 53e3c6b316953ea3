import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { KHRTextureTransform } from '@gltf-transform/extensions';
import { beforeAll, describe, expect, it } from 'vitest';
import { boxDocument, boxGeometry, gradientPng } from '../gltf/model-fixtures.test-support.js';
import { balanced, parseMeshes, shaderInput } from './usdz-layer.test-support.js';
import { writeUsdz, type UsdzOutput } from './usdz-writer.js';
import { listZipEntries, writeAlignedZip } from './usdz-zip.js';

const hasUnzip = spawnSync('unzip', ['-v']).status === 0;

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
