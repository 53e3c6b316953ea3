/** The API's error envelope, kept whole so pages can show its message exactly as the API wrote it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | null,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | string[] | undefined | null>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  query?: Query;
  /** JSON body */
  body?: unknown;
  /** raw body (an upload), sent with its own Content-Type */
  file?: Blob;
}

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item));
  }
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

/** Same-origin fetch with the session cookie; every non-2xx becomes an ApiError. */
export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: BodyInit | undefined;
  if (opts.file) {
    headers['content-type'] = opts.file.type || 'application/octet-stream';
    body = opts.file;
  } else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(withQuery(path, opts.query), { method: opts.method ?? 'GET', headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'network', 'Could not reach the server. Check your connection and try again.', null, null);
  }
  if (res.status === 204) return null as T;
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const e = (json as { error?: { code: string; message: string; details: Record<string, unknown> | null; request_id: string } } | null)?.error;
    if (e) throw new ApiError(res.status, e.code, e.message, e.details, e.request_id);
    throw new ApiError(res.status, 'http_error', `The server answered ${res.status}.`, null, res.headers.get('x-request-id'));
  }
  return json as T;
}
