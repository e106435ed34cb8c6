/**
 * Where a fleet's keys live on a three-master Redis Cluster: per master its keys, memory and slots, and per hash
 * tag the keys that share one slot. The event queue's keys (src/store/keys.ts) all carry `{queue}` — every
 * workspace's stream, usage, parked posts, dead letters and the 48-hour dedup marks of every webhook — so they
 * are one slot on one master, whatever the number of workspaces; the other keys spread by their whole name
 * (or, for alert counts and unrouted events, by a tag of their workspace).
 */
import type { Redis } from 'ioredis';
import type { RedisCluster } from './lib/redis-cluster.js';
import { usedMemory } from './lib/probes.js';

export interface MasterFigures {
  port: number;
  keys: number;
  usedBytes: number;
  /** Slots served, as `CLUSTER SLOTS` gives them. */
  slots: number;
  /** Keys of the `{queue}` tag on this master (all of them on one master). */
  queueKeys: number;
}

export interface SlotFigures {
  queueSlot: number;
  /** Port of the master owning the `{queue}` slot, and what `CLUSTER COUNTKEYSINSLOT` says is in it. */
  queueOwner: number;
  queueSlotKeys: number;
  /** `{queue}` keys by kind (`stream`, `dedup`, `usage`, …), most first. */
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

/** The kind of a `{queue}` key: the part after the tag (`campaign:{queue}:stream:T…` → `stream`). */
function queueKind(key: string): string {
  return key.slice(key.indexOf('{queue}:') + '{queue}:'.length).split(':')[0] ?? '?';
}

export async function slotReport(cluster: RedisCluster, prefix: string): Promise<SlotFigures> {
  const tagged = `${prefix}{queue}:`;
  const first = cluster.nodes[0]!.client;
  const queueSlot = Number(await first.call('CLUSTER', 'KEYSLOT', tagged));
  const ranges = (await first.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number, ...unknown[]]]>;
  const slotsOf = (port: number) =>
    ranges.filter((r) => Number(r[2][1]) === port).reduce((n, [from, to]) => n + to - from + 1, 0);
  const owner = ranges.find(([from, to]) => queueSlot >= from && queueSlot <= to)?.[2][1] ?? 0;
  const kinds = new Map<string, number>();
  const otherSlots = new Set<number>();
  let otherKeys = 0;
  const masters: MasterFigures[] = [];
  for (const node of cluster.nodes) {
    const keys = await keysOf(node.client);
    let queueKeys = 0;
    for (const key of keys) {
      if (key.startsWith(tagged)) {
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
    });
  }
  const ownerNode = cluster.nodes.find((n) => n.port === Number(owner))!;
  return {
    queueSlot,
    queueOwner: Number(owner),
    queueSlotKeys: Number(await ownerNode.client.call('CLUSTER', 'COUNTKEYSINSLOT', queueSlot)),
    queueKinds: [...kinds].sort((a, b) => b[1] - a[1]),
    masters,
    otherSlots: otherSlots.size,
    otherKeys,
  };
}
