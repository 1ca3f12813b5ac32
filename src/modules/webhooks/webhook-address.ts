import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Whether an IP address is one a user's webhook may reach: not loopback, private, link-local,
 * unspecified, shared (CGNAT), multicast or reserved — in IPv4, IPv6, and IPv4 written in IPv6
 * (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`).
 */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return isPublicIpv4(address);
  if (version === 6) return isPublicIpv6(address);
  return false;
}

function isPublicIpv4(address: string): boolean {
  const [a, b] = address.split('.').map(Number) as [number, number, number, number];
  if (a === 0 || a === 10 || a === 127) return false;
  if (a === 100 && b >= 64 && b <= 127) return false;
  if (a === 169 && b === 254) return false;
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 192 && b === 0) return false;
  if (a === 198 && (b === 18 || b === 19)) return false;
  return a < 224;
}

function isPublicIpv6(address: string): boolean {
  const words = ipv6Words(address);
  if (words === null) return false;
  const embeddedIpv4 = () => `${words[6] >> 8}.${words[6] & 0xff}.${words[7] >> 8}.${words[7] & 0xff}`;
  const zerosUpTo = (n: number) => words.slice(0, n).every((word) => word === 0);
  if (zerosUpTo(5) && words[5] === 0xffff) return isPublicIpv4(embeddedIpv4());
  if (zerosUpTo(6)) return words[6] !== 0 || words[7] > 1 ? isPublicIpv4(embeddedIpv4()) : false;
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((word) => word === 0)) return isPublicIpv4(embeddedIpv4());
  const first = words[0];
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xffc0) === 0xfec0) return false; // site-local fec0::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast
  if (first === 0x2001 && words[1] === 0x0db8) return false; // documentation
  return true;
}

/** The eight 16-bit words of an IPv6 address (a trailing dotted IPv4 included), or null. */
function ipv6Words(address: string): number[] | null {
  let text = address.split('%')[0] as string;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -(dotted[1] as string).length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string | undefined) => (part ? part.split(':').map((word) => parseInt(word, 16)) : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const words = halves.length === 2 ? [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return words.length === 8 && words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff) ? words : null;
}

export type UrlRefusal = 'scheme' | 'private';

/**
 * Why a webhook URL may not be called, or null: only http(s), and every address its host resolves
 * to must be public (unless private addresses are allowed, for development and tests). Asked at
 * create and update, and again before every send: DNS can change in between.
 */
export async function refusalOf(url: string, allowPrivate: boolean, resolve: (host: string) => Promise<string[]> = resolveHost): Promise<UrlRefusal | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'scheme';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'scheme';
  if (allowPrivate) return null;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    // A name that does not resolve now is not refused: it cannot reach a private address, and the send checks again.
    return null;
  }
  return addresses.every(isPublicAddress) ? null : 'private';
}

async function resolveHost(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}
