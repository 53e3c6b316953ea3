import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type BucketLocationConstraint,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { credentialsFor, parseS3Url } from './s3-config.js';
import { assertDeletablePrefix, assertValidKey, assertValidPrefix, ServedUnderBase, toBuffer } from './shared.js';
import { BlobNotFoundError, type BlobStore, type StoredObject } from './types.js';

export interface S3StoreOptions {
  /** take precedence over access_key_id/secret_access_key in the URL */
  accessKeyId?: string | null;
  secretAccessKey?: string | null;
  sessionToken?: string | null;
  /** bytes buffered per multipart part when put() gets a stream; S3 needs >= 5 MiB for all but the last */
  partSizeBytes?: number;
}

const MIN_PART_BYTES = 5 * 1024 * 1024;

const status = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
const isMissingObject = (err: unknown) => ['NoSuchKey', 'NotFound'].includes((err as Error)?.name) || status(err) === 404;

export class S3BlobStore extends ServedUnderBase implements BlobStore {
  readonly kind = 's3' as const;
  readonly bucket: string;
  private readonly client: S3Client;
  private readonly region: string;
  private readonly partSize: number;
  private ready: Promise<void> | null = null;

  constructor(storageUrl: string, publicBase: string, opts: S3StoreOptions = {}) {
    super(publicBase);
    const loc = parseS3Url(storageUrl);
    this.bucket = loc.bucket;
    this.region = loc.region;
    this.partSize = Math.max(MIN_PART_BYTES, opts.partSizeBytes ?? 8 * 1024 * 1024);
    this.client = new S3Client({
      region: loc.region,
      endpoint: loc.endpoint ?? undefined,
      forcePathStyle: loc.forcePathStyle,
      credentials: credentialsFor(loc, opts),
      // Otherwise the SDK sends aws-chunked bodies with trailing checksums, which s3rver stores verbatim.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Creates the bucket on first use so local development and tests need no setup step. */
  private ensureBucket(): Promise<void> {
    this.ready ??= (async () => {
      try {
        await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
        return;
      } catch (err) {
        if (status(err) !== 404) throw err;
      }
      const location = this.region === 'us-east-1' ? undefined : { LocationConstraint: this.region as BucketLocationConstraint };
      try {
        await this.client.send(new CreateBucketCommand({ Bucket: this.bucket, CreateBucketConfiguration: location }));
      } catch (err) {
        // Another process won the race to create it.
        if ((err as Error).name !== 'BucketAlreadyOwnedByYou') throw err;
      }
    })().catch((err) => {
      this.ready = null; // retry on the next call instead of failing forever
      throw err;
    });
    return this.ready;
  }

  async put(key: string, body: Buffer | Readable, opts: { contentType?: string } = {}): Promise<StoredObject> {
    const contentType = opts.contentType ?? null;
    try {
      assertValidKey(key);
      await this.ensureBucket();
    } catch (err) {
      if (body instanceof Readable) body.destroy();
      throw err;
    }
    const bytes = Buffer.isBuffer(body) ? await this.putBuffer(key, body, contentType) : await this.putStream(key, body, contentType);
    return { bytes, contentType };
  }

  private async putBuffer(key: string, body: Buffer, contentType: string | null): Promise<number> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.length, ContentType: contentType ?? undefined }),
    );
    return body.length;
  }

  /** Streams of unknown length: one PutObject when small, otherwise a multipart upload part by part. */
  private async putStream(key: string, body: Readable, contentType: string | null): Promise<number> {
    const pending: Buffer[] = [];
    let pendingBytes = 0;
    let total = 0;
    let uploadId: string | undefined;
    const parts: CompletedPart[] = [];
    const flushPart = async () => {
      const chunk = Buffer.concat(pending, pendingBytes);
      pending.length = 0;
      pendingBytes = 0;
      if (uploadId === undefined) {
        const created = await this.client.send(
          new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType ?? undefined }),
        );
        if (!created.UploadId) throw new Error('S3 did not return an upload id');
        uploadId = created.UploadId;
      }
      const PartNumber = parts.length + 1;
      const { ETag } = await this.client.send(
        new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber, Body: chunk, ContentLength: chunk.length }),
      );
      parts.push({ ETag, PartNumber });
    };
    try {
      for await (const raw of body) {
        const buf = toBuffer(raw);
        pending.push(buf);
        pendingBytes += buf.length;
        total += buf.length;
        if (pendingBytes >= this.partSize) await flushPart();
      }
      if (uploadId === undefined) return await this.putBuffer(key, Buffer.concat(pending, pendingBytes), contentType);
      if (pendingBytes > 0) await flushPart();
      await this.client.send(
        new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
      );
      return total;
    } catch (err) {
      body.destroy();
      // Unfinished uploads are billed and invisible to list(); drop them.
      if (uploadId !== undefined) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })).catch(() => {});
      }
      throw err;
    }
  }

  private async getObject(key: string) {
    assertValidKey(key);
    await this.ensureBucket();
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!res.Body) throw new Error(`S3 returned no body for ${key}`);
      return res.Body;
    } catch (err) {
      if (isMissingObject(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async get(key: string): Promise<Readable> {
    const body = await this.getObject(key);
    if (!(body instanceof Readable)) throw new Error('S3 body is not a Node stream');
    return body;
  }

  async getBuffer(key: string): Promise<Buffer> {
    const bytes = await (await this.getObject(key)).transformToByteArray();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async head(key: string): Promise<StoredObject | null> {
    assertValidKey(key);
    await this.ensureBucket();
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { bytes: res.ContentLength ?? 0, contentType: res.ContentType ?? null };
    } catch (err) {
      if (isMissingObject(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.ensureBucket();
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertDeletablePrefix(prefix);
    const keys = await this.list(prefix);
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000).map((Key) => ({ Key }));
      const res = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch, Quiet: true } }));
      if (res.Errors?.length) {
        const first = res.Errors[0];
        throw new Error(`S3 refused to delete ${res.Errors.length} object(s), e.g. ${first.Key}: ${first.Code} ${first.Message}`);
      }
    }
  }

  async list(prefix: string): Promise<string[]> {
    assertValidPrefix(prefix);
    await this.ensureBucket();
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const res = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix || undefined, ContinuationToken: token }),
      );
      for (const item of res.Contents ?? []) if (item.Key) keys.push(item.Key);
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async ping(): Promise<void> {
    await this.ensureBucket();
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
