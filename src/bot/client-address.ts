/**
 * Who sent a request, for limits kept per client: the socket's peer address — unless that peer is one of the
 * proxies TRUSTED_PROXIES lists, in which case the nearest address in `X-Forwarded-For` that is not itself a
 * trusted proxy (each proxy appends the address it received from, so only the right end can be believed; a
 * client can write anything to the left). With no proxy trusted, a client can't choose its key by a header.
 * IPv6 clients are keyed by their /64: one host usually holds the whole prefix.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The most `X-Forwarded-For` entries looked at, from the right: a chain of proxies is short. */
const MAX_HOPS = 16;

/** `req` → the key its client is counted under. */
export function clientKeyOf(trustedProxies: readonly string[]): (req: IncomingMessage) => string {
  const trusted = blockListOf(trustedProxies);
  const isTrusted = (address: string) =>
    trusted !== undefined && trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  return (req) => {
    let client = plain(req.socket.remoteAddress ?? '');
    if (!isTrusted(client)) return keyOf(client);
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').slice(-MAX_HOPS).reverse();
    for (const hop of hops) {
      const address = plain(hop.trim());
      // A malformed entry: what is left of it is the client's own writing; the last proxy answers for it.
      if (isIP(address) === 0) break;
      client = address;
      if (!isTrusted(address)) break;
    }
    return keyOf(client);
  };
}

function blockListOf(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) → `10.0.0.1`; a zone (`%eth0`) dropped. */
function plain(address: string): string {
  const bare = address.replace(/%.*$/, '');
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(bare) ? bare.slice(7) : bare;
}

/** IPv4 as is; IPv6 as its /64 (`2001:db8:1:2::/64`). */
function keyOf(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.split('::');
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
