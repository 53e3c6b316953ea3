import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { FetchError } from './types.js';

export interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js range name, or our own label for what we refuse beyond it */
  range: string;
}

// Only 2000::/3 is allocated as global unicast; everything else ipaddr.js calls
// 'unicast' (e.g. the deprecated IPv4-compatible ::/96, or unassigned space) is refused.
const globalUnicastV6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether a connection to this IP literal may be opened for a user-supplied URL.
 * Default-deny: only what ipaddr.js classifies as plain 'unicast' passes.
 */
export function classifyAddress(address: string): AddressVerdict {
  // net.isIP only accepts canonical spellings, so octal/hex/short IPv4 forms never reach ipaddr.js,
  // whose lenient parser would otherwise be a second, differing interpretation.
  if (isIP(address) === 0) return { allowed: false, range: 'invalid' };
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return { allowed: false, range: 'invalid' };
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::ffff:a.b.c.d is dialled as the IPv4 address itself, so it gets the IPv4 verdict.
    if (v6.isIPv4MappedAddress()) return classifyV4(v6.toIPv4Address());
    const range = v6.range();
    if (range !== 'unicast') return { allowed: false, range };
    if (!v6.match(globalUnicastV6)) return { allowed: false, range: 'notGlobalUnicast' };
    return { allowed: true, range };
  }
  return classifyV4(parsed as ipaddr.IPv4);
}

function classifyV4(v4: ipaddr.IPv4): AddressVerdict {
  const range = v4.range();
  return { allowed: range === 'unicast', range };
}

/** URL.hostname keeps the brackets around IPv6 literals; sockets and DNS want them off. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export function createAllowList(hosts: readonly string[]): (hostname: string) => boolean {
  const set = new Set(hosts.map((h) => bareHost(h.trim().toLowerCase())));
  return (hostname) => set.has(bareHost(hostname.toLowerCase()));
}

const credentialsInAuthority = /^[a-z][a-z0-9+.-]*:[\\/]*[^\\/?#]*@/i;

/** Parses a user-supplied URL and applies the rules that need no network: scheme and credentials. */
export function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('bad_url', 'not a valid URL', String(raw));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('bad_url', `scheme ${url.protocol} is not allowed`, url.href);
  }
  // `http://:@host/` parses to empty credentials, so also look at the authority as written.
  if (url.username || url.password || credentialsInAuthority.test(raw.replace(/[\t\n\r]/g, '').trim())) {
    throw new FetchError('bad_url', 'credentials in URL are not allowed', redact(url));
  }
  if (!url.hostname) throw new FetchError('bad_url', 'URL has no host', url.href);
  return url;
}

function redact(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}
