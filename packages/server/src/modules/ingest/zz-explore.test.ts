import { it } from 'vitest';
import sharp from 'sharp';
import { processImage } from './image-pipeline.js';
import { rawMask } from './image-fixtures.test-support.js';

it('explore', async () => {
  const raw = new Uint16Array(300 * 200 * 4);
  for (let i = 0; i < 300 * 200; i++) { raw[i*4] = 60000; raw[i*4+1] = 1000; raw[i*4+2] = 30000; raw[i*4+3] = (i % 300) > 150 ? 65535 : 20000; }
  const png = await sharp(Buffer.from(raw.buffer), { raw: { width: 300, height: 200, channels: 4, depth: 'ushort' } }).toColourspace('rgb16').png().toBuffer();
  console.log(await sharp(png).metadata().then(m => [m.space, m.depth, m.channels, m.bitsPerSample]));
  const o = await processImage(png);
  console.log(await sharp(o.original).metadata().then(m => [m.space, m.channels, m.bitsPerSample]), o.analysis);
  const m = await rawMask(o.mask); console.log('mask', m.channels, m.data[0], m.data[299]);
});
