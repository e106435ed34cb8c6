/**
 * Where a fleet's keys live on a three-master Redis Cluster: per master its keys, memory and slots, and how the
 * event queue's keys spread. A workspace's queue keys (src/store/keys.ts) carry its queue group's tag
 * `{queue:<g>.<n>}` — its stream, usage, parked posts, dead letters and the 48-hour dedup marks of its webhooks — so
 * the queue is `QUEUE_GROUPS` slots, spread over the masters; the other keys spread by their whole name (or, for
 * alert counts and unrouted events, by a tag of their workspace).
 */
import type { Redis } from 'ioredis';
import { createKeys, QUEUE_GROUPS } from '../src/store/keys.js';
import type { RedisCluster } from './lib/redis-cluster.js';
import { usedMemory } from './lib/probes.js';

export interface MasterFigures {
  port: number;
  keys: number;
  usedBytes: number;
  /** Slots served, as `CLUSTER SLOTS` gives them. */
  slots: number;
  /** Keys of the queue on this master, and the queue groups whose slot it serves. */
  queueKeys: number;
  queueGroups: number;
}

export interface SlotFigures {
  /** Keys per queue group (what `CLUSTER COUNTKEYSINSLOT` says of the group's slot), fewest to most. */
  groupKeys: number[];
  /** Queue keys by kind (`stream`, `dedup`, `usage`, …), most first. */
  queueKinds: Array<[string, number]>;
  masters: MasterFigures[];
  /** Distinct slots the fleet's other keys use, and how many keys in all. */
  otherSlots: number;
  otherKeys: number;
}

async function keysOf(node: Redis): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await node.scan(cursor, 'COUNT', 1000);
    found.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

/** The kind of a queue key: the part after the tag (`campaign:{queue:3.23}:stream:T…` → `stream`). */
function queueKind(key: string): string {
  return key.slice(key.indexOf('}:') + 2).split(':')[0] ?? '?';
}

export async function slotReport(cluster: RedisCluster, prefix: string): Promise<SlotFigures> {
  const first = cluster.nodes[0]!.client;
  const storeKeys = createKeys(prefix);
  const ranges = (await first.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number, ...unknown[]]]>;
  const ownerOf = (slot: number) => Number(ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1] ?? 0);
  const slotsOf = (port: number) =>
    ranges.filter((r) => Number(r[2][1]) === port).reduce((n, [from, to]) => n + to - from + 1, 0);
  const groupSlots: number[] = [];
  for (let g = 0; g < QUEUE_GROUPS; g++) {
    groupSlots.push(Number(await first.call('CLUSTER', 'KEYSLOT', storeKeys.queueTeams(g))));
  }
  const groupKeys: number[] = [];
  for (const slot of groupSlots) {
    const owner = cluster.nodes.find((n) => n.port === ownerOf(slot))!;
    groupKeys.push(Number(await owner.client.call('CLUSTER', 'COUNTKEYSINSLOT', slot)));
  }
  const queueStart = `${prefix}{queue:`;
  const kinds = new Map<string, number>();
  const otherSlots = new Set<number>();
  let otherKeys = 0;
  const masters: MasterFigures[] = [];
  for (const node of cluster.nodes) {
    const keys = await keysOf(node.client);
    let queueKeys = 0;
    for (const key of keys) {
      if (key.startsWith(queueStart)) {
        queueKeys++;
        kinds.set(queueKind(key), (kinds.get(queueKind(key)) ?? 0) + 1);
      } else {
        otherKeys++;
        otherSlots.add(Number(await node.client.call('CLUSTER', 'KEYSLOT', key)));
      }
    }
    masters.push({
      port: node.port,
      keys: keys.length,
      usedBytes: await usedMemory(node.client),
      slots: slotsOf(node.port),
      queueKeys,
      queueGroups: groupSlots.filter((slot) => ownerOf(slot) === node.port).length,
    });
  }
  return {
    groupKeys: groupKeys.sort((a, b) => a - b),
    queueKinds: [...kinds].sort((a, b) => b[1] - a[1]),
    masters,
    otherSlots: otherSlots.size,
    otherKeys,
  };
}
