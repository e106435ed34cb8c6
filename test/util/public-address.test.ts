/**
 * Which addresses count as public (the only ones a recording URL that is not listed may reach), and the
 * socket lookup that enforces it at connect time — through a real `net.connect`, so the check is the one the
 * connection goes by.
 */
import { createServer, connect, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, NonPublicAddressError, publicOnlyLookup } from '../../src/util/public-address.js';

describe('isPublicAddress', () => {
  it('takes public IPv4 and global IPv6 unicast', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '100.63.255.255',
      '100.128.0.1',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:82b::200e',
    ])
      expect([ip, isPublicAddress(ip)]).toEqual([ip, true]);
  });

  it('refuses private, loopback, link-local, CGNAT, multicast, reserved and documentation ranges', () => {
    for (const ip of [
      '0.0.0.0',
      '10.1.2.3',
      '100.64.0.1',
      '100.127.255.254',
      '127.0.0.1',
      '127.255.255.255',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.0.8',
      '192.0.2.1',
      '192.168.1.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
    ])
      expect([ip, isPublicAddress(ip)]).toEqual([ip, false]);
  });

  it('refuses IPv6 loopback, unspecified, ULA, link-local, site-local, multicast and documentation', () => {
    for (const ip of [
      '::',
      '::1',
      'fc00::1',
      'fd12:3456:789a::1',
      'fe80::1',
      'fe80::1%eth0',
      'fec0::1',
      'ff02::1',
      '2001:db8::1',
      '2001::1',
      '3fff::1',
      '100::1',
    ])
      expect([ip, isPublicAddress(ip)]).toEqual([ip, false]);
  });

  it('judges IPv6 forms that carry an IPv4 address by that address (mapped, compatible, NAT64, 6to4)', () => {
    const cases: Array<[string, boolean]> = [
      ['::ffff:127.0.0.1', false],
      ['::ffff:7f00:1', false],
      ['::ffff:10.0.0.1', false],
      ['::ffff:169.254.169.254', false],
      ['::ffff:8.8.8.8', true],
      ['::127.0.0.1', false],
      ['64:ff9b::10.0.0.1', false],
      ['64:ff9b::8.8.8.8', true],
      ['64:ff9b:1::8.8.8.8', false],
      ['2002:c0a8:0101::1', false], // 6to4 of 192.168.1.1
      ['2002:0808:0808::1', true], // 6to4 of 8.8.8.8
      ['[::ffff:127.0.0.1]', false],
    ];
    for (const [ip, expected] of cases) expect([ip, isPublicAddress(ip)]).toEqual([ip, expected]);
  });

  it('is false for what is not an address', () => {
    for (const text of ['', 'localhost', 'example.com', '1.2.3', '1.2.3.256', '::g', '1:2:3:4:5:6:7:8:9'])
      expect(isPublicAddress(text)).toBe(false);
  });
});

describe('publicOnlyLookup on a real socket', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('fails the connection to a name that resolves to loopback, before anything is sent', async () => {
    const failure = await new Promise<Error>((resolve, reject) => {
      const socket = connect({ host: 'localhost', port, lookup: publicOnlyLookup });
      socket.once('connect', () => reject(new Error('connected')));
      socket.once('error', resolve);
    });
    expect(failure).toBeInstanceOf(NonPublicAddressError);
    expect(failure).toMatchObject({ host: 'localhost', code: 'ERR_NON_PUBLIC_ADDRESS' });
    expect(connections).toBe(0);
  });
});
