import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** STORAGE_URL parsing and the credential choice for the S3 store. */

type Credentials = NonNullable<S3ClientConfig['credentials']>;
type Identity = Exclude<Credentials, (...args: never[]) => unknown>;

export interface S3Location {
  bucket: string;
  region: string;
  endpoint: string | null;
  forcePathStyle: boolean;
  accessKeyId: string | null;
  secretAccessKey: string | null;
}

const KNOWN_PARAMS = new Set(['endpoint', 'region', 'force_path_style', 'access_key_id', 'secret_access_key']);
// s3rver only accepts this key pair; MinIO and real S3 need configured credentials anyway.
const LOCAL_DUMMY_CREDENTIALS: Identity = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export function parseS3Url(storageUrl: string): S3Location {
  const url = new URL(storageUrl);
  if (url.protocol !== 's3:' || !url.hostname) throw new Error(`STORAGE_URL must look like s3://bucket?…, got ${storageUrl}`);
  if (url.pathname && url.pathname !== '/') throw new Error('STORAGE_URL: a key prefix after the bucket is not supported');
  for (const name of url.searchParams.keys()) {
    if (!KNOWN_PARAMS.has(name)) throw new Error(`STORAGE_URL: unknown parameter "${name}"`);
  }
  const q = (name: string) => url.searchParams.get(name) || null;
  const forcePathStyle = (q('force_path_style') ?? 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(forcePathStyle)) throw new Error('STORAGE_URL: force_path_style must be true or false');
  return {
    bucket: decodeURIComponent(url.hostname),
    region: q('region') ?? 'us-east-1',
    endpoint: q('endpoint'),
    forcePathStyle: forcePathStyle === 'true' || forcePathStyle === '1',
    accessKeyId: q('access_key_id'),
    secretAccessKey: q('secret_access_key'),
  };
}

export function credentialsFor(
  loc: S3Location,
  opts: { accessKeyId?: string | null; secretAccessKey?: string | null; sessionToken?: string | null },
): Credentials | undefined {
  const accessKeyId = opts.accessKeyId || loc.accessKeyId;
  const secretAccessKey = opts.secretAccessKey || loc.secretAccessKey;
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey, sessionToken: opts.sessionToken || undefined };
  if (accessKeyId || secretAccessKey) throw new Error('S3 storage: access key id and secret access key must be given together');
  if (!loc.endpoint) return undefined; // real AWS: the SDK's default chain (env, profile, instance role, …)
  // With a custom endpoint, try the same default chain first and fall back only when it has nothing.
  const defaultChain = new S3Client({ region: loc.region }).config.credentials;
  let useDummy = false;
  return async () => {
    if (!useDummy) {
      try {
        return await defaultChain();
      } catch (err) {
        if ((err as Error).name !== 'CredentialsProviderError') throw err;
        useDummy = true;
      }
    }
    return LOCAL_DUMMY_CREDENTIALS;
  };
}
