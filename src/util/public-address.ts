/**
 * Whether an IP address is on the public internet, and a DNS lookup for sockets that refuses any other. Used
 * where the bot fetches a URL a third party gave it (a call's recording): such a URL must not reach this
 * machine, the private network it sits in, or a cloud's metadata service.
 *
 * The check runs inside the socket's own lookup (`net.connect({ lookup })`), so the address checked is the
 * address connected to: a name that resolves to a public address when looked at and to a private one a moment
 * later (DNS rebinding) is refused either way. Node does not call `lookup` for an IP literal, so callers check
 * a literal host with `isPublicAddress` before connecting.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';

/** A connection refused because its host resolved to an address that is not public. */
export class NonPublicAddressError extends Error {
  override readonly name = 'NonPublicAddressError';
  readonly code = 'ERR_NON_PUBLIC_ADDRESS';

  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, which is not a public internet address`);
  }
}

/** IPv4 ranges that are not public (RFC 6890 special-purpose registry and friends), as [first octets, prefix]. */
const IPV4_NOT_PUBLIC: ReadonlyArray<readonly [number[], number]> = [
  [[0], 8], // "this network"
  [[10], 8], // private
  [[100, 64], 10], // carrier-grade NAT
  [[127], 8], // loopback
  [[169, 254], 16], // link-local (cloud metadata services live here)
  [[172, 16], 12], // private
  [[192, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2], 24], // documentation
  [[192, 88, 99], 24], // 6to4 relay anycast
  [[192, 168], 16], // private
  [[198, 18], 15], // benchmarking
  [[198, 51, 100], 24], // documentation
  [[203, 0, 113], 24], // documentation
  [[224], 4], // multicast
  [[240], 4], // reserved, and the broadcast address
];

function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

/** The 16 bytes of an IPv6 address (`::`, an embedded dotted IPv4 tail and a zone id allowed). */
function ipv6Bytes(text: string): number[] | undefined {
  let rest = text.replace(/%.*$/, '');
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (dotted) {
    const v4 = ipv4Bytes(dotted[1]!);
    if (!v4) return undefined;
    tail.push(...v4);
    rest = `${rest.slice(0, dotted.index)}:0:0`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const back = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - back.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...back];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

function inPrefix(bytes: readonly number[], first: readonly number[], bits: number): boolean {
  for (let i = 0; i * 8 < bits; i++) {
    const take = Math.min(8, bits - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((first[i] ?? 0) & mask)) return false;
  }
  return true;
}

function isPublicIpv4(bytes: readonly number[]): boolean {
  return !IPV4_NOT_PUBLIC.some(([first, bits]) => inPrefix(bytes, first, bits));
}

function isPublicIpv6(b: readonly number[]): boolean {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d, which covers :: and ::1):
  // as public as the IPv4 address they carry.
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return isPublicIpv4(b.slice(12));
  if (zeros(0, 12)) return isPublicIpv4(b.slice(12));
  // NAT64 (64:ff9b::/96) reaches the IPv4 address it carries; its local-use range (64:ff9b:1::/48) is private.
  if (inPrefix(b, [0x00, 0x64, 0xff, 0x9b], 32) && zeros(4, 12)) return isPublicIpv4(b.slice(12));
  if (inPrefix(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return false;
  // 6to4 (2002::/16) carries an IPv4 address in its next 32 bits.
  if (b[0] === 0x20 && b[1] === 0x02) return isPublicIpv4(b.slice(2, 6));
  // Only global unicast (2000::/3) is public: this leaves out ULA fc00::/7, link-local fe80::/10, site-local
  // fec0::/10, multicast ff00::/8, discard 100::/64 and the unspecified/loopback forms above.
  if ((b[0]! & 0xe0) !== 0x20) return false;
  // Within it: IETF protocol assignments 2001::/23 (Teredo, ORCHID, benchmarking…), documentation 2001:db8::/32
  // and 3fff::/20.
  if (inPrefix(b, [0x20, 0x01, 0x00], 23)) return false;
  if (inPrefix(b, [0x20, 0x01, 0x0d, 0xb8], 32)) return false;
  if (inPrefix(b, [0x3f, 0xff, 0x00], 20)) return false;
  return true;
}

/** True for an IPv4 or IPv6 address on the public internet; false for anything else (or not an address). */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare.replace(/%.*$/, ''));
  if (version === 4) {
    const bytes = ipv4Bytes(bare);
    return bytes !== undefined && isPublicIpv4(bytes);
  }
  if (version === 6) {
    const bytes = ipv6Bytes(bare);
    return bytes !== undefined && isPublicIpv6(bytes);
  }
  return false;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `dns.lookup` for `net.connect` / `tls.connect` (and so for an undici `Agent`'s `connect` options) that fails
 * the connection when any address the name resolves to is not public.
 */
export function publicOnlyLookup(
  hostname: string,
  options: LookupOneOptions | LookupAllOptions,
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(new NonPublicAddressError(hostname, refused.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
