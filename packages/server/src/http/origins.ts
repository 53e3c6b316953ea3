/**
 * Allowed-domain entries are origins: `https://shop.example`, `http://localhost:3000`, or a wildcard
 * subdomain `https://*.example.com` (which matches `https://a.example.com`, not the apex).
 */
const ENTRY = /^(https?):\/\/(\*\.)?([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:]+\])(:\d{1,5})?$/;

export function normaliseOriginEntry(raw: string): string | null {
  const value = raw.trim().toLowerCase().replace(/\/+$/, '');
  const m = ENTRY.exec(value);
  if (!m) return null;
  const [, scheme, wildcard, host, , port] = m;
  if (wildcard && host.split('.').length < 2) return null;
  const defaultPort = scheme === 'https' ? ':443' : ':80';
  return `${scheme}://${wildcard ?? ''}${host}${port && port !== defaultPort ? port : ''}`;
}

/**
 * Parsed origins, since every publishable-key request checks one and a site sends the same few:
 * bounded, as the header is the caller's to choose.
 */
const normalised = new Map<string, string | null>();
const NORMALISED_MAX = 1_000;

export function normaliseOrigin(origin: string): string | null {
  let o = normalised.get(origin);
  if (o === undefined) {
    o = parseOrigin(origin);
    if (normalised.size >= NORMALISED_MAX) normalised.clear();
    normalised.set(origin, o);
  }
  return o;
}

function parseOrigin(origin: string): string | null {
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    return null;
  }
}

export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (!origin) return false;
  const o = normaliseOrigin(origin);
  if (!o) return false;
  for (const entry of allowed) {
    if (entry === o) return true;
    const star = entry.indexOf('://*.');
    if (star > 0) {
      const scheme = entry.slice(0, star + 3);
      const suffix = entry.slice(star + 4); // ".example.com[:port]"
      if (o.startsWith(scheme) && o.endsWith(suffix) && o.length > scheme.length + suffix.length) {
        const sub = o.slice(scheme.length, o.length - suffix.length);
        if (/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(sub)) return true;
      }
    }
  }
  return false;
}
