import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { boxDocument, gltfFiles } from '@plinth/media/test-support';
import { createLogger } from '../../logger.js';
import { childEntry, MediaSandbox } from './media-sandbox.js';

const entry = childEntry();
if (!entry) console.log('\n[plinth] media sandbox tests skipped: run `npm run build -w @plinth/media` first (they run its compiled child).\n');

describe.skipIf(!entry)('media sandbox: operations in a child process', () => {
  const sandbox = new MediaSandbox(entry!, { memoryMb: 1024, timeoutS: 60, stackKb: 2048, children: 2 }, createLogger('silent'));
  afterAll(() => sandbox.close());

  it('decodes and analyses an image in a child, answering with Buffers', async () => {
    const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#2060c0' } }).jpeg().toBuffer();
    const out = await sandbox.run('image.process', { data: photo });
    expect(Buffer.isBuffer(out.original)).toBe(true);
    expect(out.width).toBe(320);
    expect(out.height).toBe(240);
    const pids = sandbox.pids();
    expect(pids.length).toBeGreaterThan(0);
    expect(pids).not.toContain(process.pid);
  });

  it('keeps its children between calls', async () => {
    const a = await sandbox.run('sandbox.probe', {});
    const b = await sandbox.run('sandbox.probe', {});
    expect(sandbox.pids()).toContain(a.pid);
    expect(sandbox.pids()).toContain(b.pid);
    expect(a.pid).not.toBe(process.pid);
  });

  it('sandbox.warm runs the model import once in a child, and that warmed child takes the next call', async () => {
    const warmed = await sandbox.run('sandbox.warm', {});
    expect(sandbox.pids()).toContain(warmed.pid);
    expect((await sandbox.run('sandbox.probe', {})).pid).toBe(warmed.pid);
  });

  it("asks the server to fetch a model's external resources, and refusals come back as MediaError reasons", async () => {
    const { json, files } = await gltfFiles(boxDocument({ meshSize: [0.4, 0.3, 0.2] }).doc);
    const asked: string[] = [];
    const model = await sandbox.run(
      'model.process_buffer',
      { data: json, baseUrl: 'https://models.example/box.gltf' },
      {
        fetchBytes: async (url) => {
          asked.push(url);
          const name = url.split('/').pop()!;
          return Buffer.from(files[name]);
        },
      },
    );
    expect(asked.length).toBeGreaterThan(0);
    expect(model.dimensions.width).toBeCloseTo(0.4, 3);
    expect(Buffer.isBuffer(model.usdz)).toBe(true);

    await expect(sandbox.run('model.process_buffer', { data: Buffer.from('not a model'), baseUrl: null })).rejects.toMatchObject({
      name: 'MediaError',
      reason: 'corrupt_model',
    });
  });
});
