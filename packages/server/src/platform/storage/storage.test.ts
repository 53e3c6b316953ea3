import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { TEST_BACKEND, tempDir, testS3Url } from '../../test/env.js';
import { BlobNotFoundError, createBlobStore, parseS3Url, S3BlobStore, type BlobStore } from './index.js';

const PUBLIC_URL = 'https://plinth.example';
const dirs: { remove(): void }[] = [];

function storeFor(storageUrl?: string): BlobStore {
  const dir = tempDir('plinth-storage-');
  dirs.push(dir);
  const env: Record<string, string> = { PLINTH_DATA_DIR: dir.path, PLINTH_SECRET: 'test-secret-0123456789abcdef', PUBLIC_URL };
  if (storageUrl) env.STORAGE_URL = storageUrl;
  return createBlobStore(loadConfig(env));
}

const s3Url = testS3Url(randomBytes(4).toString('hex'));
if (!s3Url) console.log(`[storage.test] S3 cases skipped: no s3rver in the ${TEST_BACKEND} project (the postgres project starts one).`);

const backends: { name: 'disk' | 's3'; make: () => BlobStore }[] = [
  { name: 'disk', make: () => storeFor() },
  ...(s3Url ? [{ name: 's3' as const, make: () => storeFor(s3Url) }] : []),
];

afterAll(() => dirs.forEach((d) => d.remove()));

const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

/** A stream of `total` random bytes in uneven chunks, and the sha256 it should hash to. */
function randomStream(total: number): { stream: Readable; digest: string } {
  const data = randomBytes(total);
  let offset = 0;
  const stream = new Readable({
    read() {
      if (offset >= total) return void this.push(null);
      const size = Math.min(total - offset, 1000 + Math.floor(Math.random() * 70_000));
      this.push(data.subarray(offset, offset + size));
      offset += size;
    },
  });
  return { stream, digest: sha256(data) };
}

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function failingStream(): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(Buffer.from('partial'));
      } else {
        this.destroy(new Error('client went away'));
      }
    },
  });
}

const HOSTILE_KEYS = ['', '/etc/passwd', '../escape', 'a/../../escape', 'a/./b', 'a\\b', 'a//b', 'a/', '.hidden', 'a/.tmp-x', 'nul\0byte'];

describe.each(backends)('BlobStore ($name)', ({ name, make }) => {
  let store: BlobStore;
  const run = `run-${randomBytes(4).toString('hex')}`;

  beforeAll(() => {
    store = make();
  });
  afterAll(async () => {
    await store.deletePrefix(`${run}/`).catch(() => {});
    await store.close();
  });

  it('is the adapter STORAGE_URL asks for and answers ping', async () => {
    expect(store.kind).toBe(name);
    await store.ping();
  });

  it('puts and reads back a buffer with its content type', async () => {
    const key = `${run}/orgs/org_1/img.png`;
    const body = Buffer.from('png bytes \u00e9');
    expect(await store.put(key, body, { contentType: 'image/png' })).toEqual({ bytes: body.length, contentType: 'image/png' });
    expect(await store.head(key)).toEqual({ bytes: body.length, contentType: 'image/png' });
    expect((await store.getBuffer(key)).equals(body)).toBe(true);
    expect((await drain(await store.get(key))).equals(body)).toBe(true);
  });

  it('overwrites an object, content type included', async () => {
    const key = `${run}/overwrite.txt`;
    await store.put(key, Buffer.from('first'), { contentType: 'text/plain' });
    await store.put(key, Buffer.from('second!'), { contentType: 'application/json' });
    expect(await store.head(key)).toEqual({ bytes: 7, contentType: 'application/json' });
    expect((await store.getBuffer(key)).toString()).toBe('second!');
  });

  it('stores empty objects', async () => {
    const key = `${run}/empty`;
    await store.put(key, Buffer.alloc(0));
    expect((await store.head(key))?.bytes).toBe(0);
    expect((await store.getBuffer(key)).length).toBe(0);
  });

  it('round-trips a 5 MB stream byte for byte', async () => {
    const key = `${run}/big/five.bin`;
    const { stream, digest } = randomStream(5 * 1024 * 1024);
    const stored = await store.put(key, stream, { contentType: 'application/octet-stream' });
    expect(stored.bytes).toBe(5 * 1024 * 1024);
    expect((await store.head(key))?.bytes).toBe(5 * 1024 * 1024);
    expect(sha256(await drain(await store.get(key)))).toBe(digest);
    expect(sha256(await store.getBuffer(key))).toBe(digest);
  });

  it('keeps the previous object when a streamed put fails midway', async () => {
    const key = `${run}/atomic.txt`;
    await store.put(key, Buffer.from('old'), { contentType: 'text/plain' });
    await expect(store.put(key, failingStream(), { contentType: 'text/html' })).rejects.toThrow('client went away');
    expect((await store.getBuffer(key)).toString()).toBe('old');
    expect(await store.head(key)).toEqual({ bytes: 3, contentType: 'text/plain' });
    const fresh = `${run}/never-written.txt`;
    await expect(store.put(fresh, failingStream())).rejects.toThrow();
    expect(await store.head(fresh)).toBeNull();
  });

  it('reports missing objects', async () => {
    const key = `${run}/missing/nothing.bin`;
    await expect(store.get(key)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.getBuffer(key)).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await store.head(key)).toBeNull();
    await store.delete(key); // deleting nothing is fine
  });

  it('deletes one object', async () => {
    const key = `${run}/del/one.txt`;
    await store.put(key, Buffer.from('x'));
    await store.delete(key);
    expect(await store.head(key)).toBeNull();
    await expect(store.getBuffer(key)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('lists and deletes by prefix, treating the prefix as a string', async () => {
    const keys = ['p/a/1', 'p/a/2', 'p/a/deep/3', 'p/ab/4', 'p/b/5'].map((k) => `${run}/${k}`);
    for (const key of keys) await store.put(key, Buffer.from(key));
    expect(await store.list(`${run}/p/`)).toEqual(keys);
    expect(await store.list(`${run}/p/a/`)).toEqual(keys.slice(0, 3));
    expect(await store.list(`${run}/p/a`)).toEqual(keys.slice(0, 4));
    expect(await store.list(`${run}/p/a/de`)).toEqual([keys[2]]);
    expect(await store.list(`${run}/nothing/`)).toEqual([]);
    expect(await store.list('')).toEqual(expect.arrayContaining(keys));

    await store.deletePrefix(`${run}/p/a/`);
    expect(await store.list(`${run}/p/`)).toEqual(keys.slice(3));
    await store.deletePrefix(`${run}/p/`);
    expect(await store.list(`${run}/p/`)).toEqual([]);
    await expect(store.deletePrefix('')).rejects.toThrow(/empty prefix/);
  });

  it('rejects hostile keys everywhere', async () => {
    for (const key of HOSTILE_KEYS) {
      await expect(store.put(key, Buffer.from('evil')), key).rejects.toThrow();
      await expect(store.put(key, Readable.from([Buffer.from('evil')])), key).rejects.toThrow();
      await expect(store.get(key), key).rejects.toThrow();
      await expect(store.getBuffer(key), key).rejects.toThrow();
      await expect(store.head(key), key).rejects.toThrow();
      await expect(store.delete(key), key).rejects.toThrow();
      expect(() => store.publicUrl(key), key).toThrow();
    }
    for (const prefix of ['/abs', '../up', 'a/../b', 'a\\b', 'a//']) {
      await expect(store.list(prefix), prefix).rejects.toThrow();
      await expect(store.deletePrefix(prefix), prefix).rejects.toThrow();
    }
  });

  it('builds public URLs under /files with each segment encoded', () => {
    expect(store.publicUrl('orgs/org_1/img_1.jpg')).toBe(`${PUBLIC_URL}/files/orgs/org_1/img_1.jpg`);
    expect(store.publicUrl('orgs/a b/x#1?.jpg')).toBe(`${PUBLIC_URL}/files/orgs/a%20b/x%231%3F.jpg`);
  });

  it('serves concurrent writes and reads', async () => {
    const bodies = Array.from({ length: 20 }, (_, i) => randomBytes(1000 + i));
    await Promise.all(bodies.map((b, i) => store.put(`${run}/conc/${i}`, b)));
    const back = await Promise.all(bodies.map((_, i) => store.getBuffer(`${run}/conc/${i}`)));
    back.forEach((b, i) => expect(b.equals(bodies[i])).toBe(true));
  });
});

describe('disk store specifics', () => {
  it('writes under the data dir by default, leaves no temp files and prunes empty directories', async () => {
    const dir = tempDir('plinth-storage-');
    dirs.push(dir);
    const store = createBlobStore(loadConfig({ PLINTH_DATA_DIR: dir.path, PLINTH_SECRET: 'test-secret-0123456789abcdef' }));
    const root = join(dir.path, 'files');
    await store.put('a/b/c.txt', Buffer.from('c'), { contentType: 'text/plain' });
    await expect(store.put('a/b/d.txt', failingStream())).rejects.toThrow();
    expect(readdirSync(join(root, 'a/b')).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    expect(existsSync(join(root, 'a/b/c.txt'))).toBe(true);
    expect(await store.list('')).toEqual(['a/b/c.txt']); // the metadata file is not an object
    await store.deletePrefix('a/');
    expect(existsSync(join(root, 'a'))).toBe(false);
    expect(existsSync(root)).toBe(true);
    expect(readdirSync(dirname(root)).sort()).toEqual(['files']); // nothing escaped the root
  });

  it('refuses a file:// URL with a host', () => {
    expect(() => storeFor('file://relative/path')).toThrow(/file:\/\//);
  });
});

describe('s3 URL parsing', () => {
  it('reads bucket, endpoint, region and path style', () => {
    expect(parseS3Url('s3://bkt?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1&force_path_style=true')).toEqual({
      bucket: 'bkt',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      accessKeyId: null,
      secretAccessKey: null,
    });
    expect(parseS3Url('s3://bkt').region).toBe('us-east-1');
  });

  it('fails loudly on what it does not understand', () => {
    expect(() => parseS3Url('s3://bkt?endpont=x')).toThrow(/unknown parameter/);
    expect(() => parseS3Url('s3://bkt/some/prefix')).toThrow(/prefix/);
    expect(() => parseS3Url('s3://bkt?force_path_style=yes')).toThrow(/force_path_style/);
    expect(() => new S3BlobStore('s3://bkt?access_key_id=only', PUBLIC_URL)).toThrow(/together/);
  });
});

describe.skipIf(!s3Url)('s3 store specifics', () => {
  it('uploads a stream larger than one part as a multipart upload', async () => {
    const store = new S3BlobStore(s3Url!, PUBLIC_URL, { partSizeBytes: 5 * 1024 * 1024 });
    try {
      const { stream, digest } = randomStream(12 * 1024 * 1024 + 17);
      expect((await store.put('multi/part.bin', stream, { contentType: 'model/gltf-binary' })).bytes).toBe(12 * 1024 * 1024 + 17);
      expect(await store.head('multi/part.bin')).toEqual({ bytes: 12 * 1024 * 1024 + 17, contentType: 'model/gltf-binary' });
      expect(sha256(await store.getBuffer('multi/part.bin'))).toBe(digest);
      await store.delete('multi/part.bin');
    } finally {
      await store.close();
    }
  });
});
