import { describe, it, expect } from 'vitest';
import { classifyAddress, createAllowList, parseTarget } from './address-policy.js';
import { FetchError } from './types.js';

const blocked: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.1.2.3', 'private 10/8'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12'],
  ['192.168.1.1', 'private 192.168/16'],
  ['100.64.0.1', 'CGNAT'],
  ['100.127.255.255', 'CGNAT'],
  ['169.254.169.254', 'cloud metadata'],
  ['169.254.0.1', 'link-local'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this network 0/8'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['192.0.0.8', 'IETF 192.0.0/24'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.51.100.1', 'TEST-NET-2'],
  ['203.0.113.1', 'TEST-NET-3'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456::1', 'unique-local'],
  ['fe80::1', 'IPv6 link-local'],
  ['fe80::1%eth0', 'IPv6 link-local with zone'],
  ['fec0::1', 'deprecated site-local'],
  ['ff02::1', 'IPv6 multicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback (hex)'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:0:7f00:1', 'SIIT (rfc6145) loopback'],
  ['::7f00:1', 'IPv4-compatible loopback'],
  ['::a00:1', 'IPv4-compatible private'],
  ['64:ff9b::7f00:1', 'NAT64 loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 metadata'],
  ['64:ff9b:1::a00:1', 'local-use NAT64'],
  ['2002:7f00:1::', '6to4 loopback'],
  ['2002:a9fe:a9fe::1', '6to4 metadata'],
  ['2001::1', 'Teredo'],
  ['2001:db8::1', 'IPv6 documentation'],
  ['100::1', 'discard-only'],
  ['4000::1', 'outside 2000::/3'],
  // Only canonical literals are classified; anything else must have gone through URL/DNS first.
  ['127.1', 'short IPv4'],
  ['0x7f000001', 'hex IPv4'],
  ['2130706433', 'decimal IPv4'],
  ['0177.0.0.1', 'octal IPv4'],
  ['localhost', 'a name'],
  ['', 'empty'],
];

const allowed = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '172.15.255.255',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '2606:2800:220:1:248:1893:25c8:1946',
  '2a00:1450:4001:80b::200e',
  '::ffff:93.184.216.34',
];

describe('classifyAddress', () => {
  it.each(blocked)('refuses %s (%s)', (address) => {
    expect(classifyAddress(address).allowed).toBe(false);
  });

  it.each(allowed)('allows public %s', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true, range: 'unicast' });
  });
});

describe('parseTarget', () => {
  const bad = [
    'not a url',
    '',
    'http://',
    'http://[::1',
    'file:///etc/passwd',
    'ftp://127.0.0.1/',
    'data:text/plain,hi',
    'gopher://127.0.0.1:70/_GET',
    'javascript:alert(1)',
    'ws://127.0.0.1/',
    'http://user@example.com/',
    'http://user:pass@example.com/',
    'http://:@example.com/',
    'http://@example.com/',
    'https://example.com@evil.test/',
    'http:\\\\user@example.com/',
    'http:user@example.com/',
    ' http://u\t@example.com/',
  ];

  it.each(bad)('refuses %j as bad_url', (raw) => {
    let caught: unknown;
    try {
      parseTarget(raw);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(FetchError);
    expect((caught as FetchError).code).toBe('bad_url');
    expect((caught as FetchError).url).not.toMatch(/user|:pass/);
  });

  it('accepts http(s) and normalises IPv4 spellings the way the socket will see them', () => {
    expect(parseTarget('https://Example.COM/a?b#c').hostname).toBe('example.com');
    for (const spelling of ['127.1', '0x7f000001', '2130706433', '0177.0.0.1', '0x7f.1', '127.0.0.1.']) {
      expect(parseTarget(`http://${spelling}/`).hostname).toBe('127.0.0.1');
    }
    expect(parseTarget('http://[0:0:0:0:0:ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });
});

describe('createAllowList', () => {
  it('matches the hostname as written, with or without IPv6 brackets', () => {
    const allowed = createAllowList(['localhost', '127.0.0.1', '::1']);
    expect(allowed('localhost')).toBe(true);
    expect(allowed('LOCALHOST')).toBe(true);
    expect(allowed('[::1]')).toBe(true);
    expect(allowed('127.0.0.1')).toBe(true);
    expect(allowed('localhost.')).toBe(false);
    expect(allowed('[::ffff:7f00:1]')).toBe(false);
    expect(allowed('sub.localhost')).toBe(false);
  });
});
