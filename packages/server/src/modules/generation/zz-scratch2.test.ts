import { it } from 'vitest';
import sharp from 'sharp';
import { renderTurntable } from './turntable-fixtures.test-support.js';
it('dbg', async () => {
  const views = await renderTurntable({ kind: 'cylinder', radius: 0.1, height: 0.3 }, { views: 8, size: 512, pixelsPerMetre: 1000 });
  await sharp(views[1].image).png().toFile('/tmp/gen-scratch/view1.png');
  await sharp(views[1].mask).png().toFile('/tmp/gen-scratch/mask1.png');
  const m = await sharp(views[1].mask).raw().toBuffer({ resolveWithObject: true });
  process.stderr.write(JSON.stringify(m.info) + '\n');
  const t = await sharp(m.data, { raw: { width: 512, height: 512, channels: 1 } }).extract({ left: 10, top: 10, width: 100, height: 50 }).resize(50, 25, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  process.stderr.write(JSON.stringify(t.info) + '\n');
});
