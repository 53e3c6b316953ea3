import { it } from 'vitest';
import { createBuiltinGenerator } from './builtin-generator.js';
import { renderTurntable } from './turntable-fixtures.test-support.js';
import { validateGlb } from '../ingest/model-validate.js';
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
const log = (...a: unknown[]) => process.stderr.write(a.map((x) => JSON.stringify(x)).join(' ') + '\n');
it('try', async () => {
  for (const el of [20]) for (const shape of [{ kind: 'sphere', radius: 0.15, height: 0.3 }, { kind: 'box', width: 0.4, height: 0.3, depth: 0.2 }] as const) {
    let t = Date.now();
    const views = await renderTurntable(shape, { views: 8, size: 512, pixelsPerMetre: 1000, elevationDeg: el });
    if (el === 20) await sharp(views[1].image).png().toFile(`/tmp/gen-scratch/el-${shape.kind}.png`);
    t = Date.now();
    const r = await createBuiltinGenerator().generate(views, { heightMetres: 0.3, elevationDeg: el });
    log(el, shape.kind, 'gen', Date.now() - t, r.dimensions, r.triangles);
    writeFileSync(`/tmp/gen-scratch/${shape.kind}-el${el}.glb`, r.glb);
    const v = await validateGlb(r.glb);
    log(v.errors, v.warnings);
  }
}, 120000);
