import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { bareHost, classifyAddress, createAllowList } from './address-policy.js';
import { FetchError } from './types.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name resolution, injectable so tests can map names to addresses without real DNS. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: LookupFn = (hostname) => dns.lookup(hostname, { all: true });

type ConnectLookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export interface GuardedResolver {
  /** Resolves a URL hostname and refuses it unless every address is allowed (or the host is allow-listed). */
  resolve(hostname: string): Promise<ResolvedAddress[]>;
  /**
   * `lookup` for net/tls.connect. The socket dials exactly the addresses vetted here, so a DNS
   * answer that changes between a check and the connect (rebinding) cannot slip through.
   */
  connectLookup(hostname: string, options: LookupOptions, callback: ConnectLookupCallback): void;
}

export function createResolver(allowHosts: readonly string[], lookup: LookupFn = systemLookup): GuardedResolver {
  const isAllowListed = createAllowList(allowHosts);

  async function resolve(hostname: string): Promise<ResolvedAddress[]> {
    const host = bareHost(hostname);
    const literal = isIP(host);
    const addresses = literal ? [{ address: host, family: literal }] : await lookupName(host);
    if (isAllowListed(hostname)) return addresses;
    for (const { address } of addresses) {
      const verdict = classifyAddress(address);
      if (!verdict.allowed) {
        const what = literal ? address : `${host} resolves to ${address}, which`;
        throw new FetchError('blocked_address', `${what} is not a public address (${verdict.range})`, hostname);
      }
    }
    return addresses;
  }

  async function lookupName(host: string): Promise<ResolvedAddress[]> {
    let addresses: ResolvedAddress[];
    try {
      addresses = await lookup(host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new FetchError('dns_failed', `cannot resolve ${host} (${code})`, host);
    }
    if (addresses.length === 0) throw new FetchError('dns_failed', `${host} has no addresses`, host);
    return addresses;
  }

  function connectLookup(hostname: string, options: LookupOptions, callback: ConnectLookupCallback): void {
    resolve(hostname).then(
      (all) => {
        const wanted = familyNumber(options.family);
        const usable = wanted ? all.filter((a) => a.family === wanted) : all;
        if (usable.length === 0) {
          callback(new FetchError('dns_failed', `${hostname} has no IPv${wanted} address`, hostname), '');
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0].address, usable[0].family);
        }
      },
      (err: FetchError) => callback(err, ''),
    );
  }

  return { resolve, connectLookup };
}

function familyNumber(family: LookupOptions['family']): 4 | 6 | 0 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}
