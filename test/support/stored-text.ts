/**
 * Everything a store holds, as text: every key with its value rendered whatever its type (strings, hashes,
 * sets, lists, streams, sorted sets), on one Redis or on every master of a Redis Cluster — or, in memory mode,
 * what the key-value store and the queue's dead letters hold. What a scan of the database would show an
 * attacker who got a copy of it: tests of uninstalling look there for a workspace's customers.
 */
import { Cluster, type Redis } from 'ioredis';
import type { Store } from '../../src/store/index.js';
import { WRONGTYPE_MESSAGE } from '../../src/store/kv.js';

/** key → its value as text. */
export type StoredText = Map<string, string>;

/** Every key under `prefix` in Redis (each master of a Cluster) with its value. */
export async function redisText(client: Redis | Cluster, prefix: string): Promise<StoredText> {
  const out: StoredText = new Map();
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      for (const key of batch) out.set(key, await valueText(node, key));
      cursor = next;
    } while (cursor !== '0');
  }
  return out;
}

async function valueText(node: Redis, key: string): Promise<string> {
  switch (await node.type(key)) {
    case 'string':
      return (await node.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await node.hgetall(key));
    case 'set':
      return JSON.stringify(await node.smembers(key));
    case 'list':
      return JSON.stringify(await node.lrange(key, 0, -1));
    case 'zset':
      return JSON.stringify(await node.zrange(key, 0, -1, 'WITHSCORES'));
    case 'stream':
      return JSON.stringify([await node.xrange(key, '-', '+'), await node.call('XINFO', 'GROUPS', key)]);
    case 'none':
      return ''; // expired between SCAN and TYPE
    default:
      return `(unknown type of ${key})`;
  }
}

/** Memory mode: every key of the store's key-value part with its value, and these workspaces' dead letters. */
export async function memoryText(store: Store, teams: readonly string[]): Promise<StoredText> {
  const out: StoredText = new Map();
  for (const key of await store.kv.keysWithPrefix('')) out.set(key, await kvText(store, key));
  // Named by position: a key naming the workspace would itself be found holding it.
  for (const [i, team] of teams.entries()) {
    out.set(`(queue dead letters ${i})`, JSON.stringify(await store.queue.deadLetters(team, 10_000)));
  }
  return out;
}

/** A key-value store key's value, whichever of its types it has. */
async function kvText(store: Store, key: string): Promise<string> {
  const reads = [
    () => store.kv.get(key).then((v) => v ?? ''),
    () => store.kv.hashGetAll(key).then((h) => JSON.stringify(h)),
    () => store.kv.setMembers(key).then((m) => JSON.stringify(m)),
  ];
  for (const read of reads) {
    try {
      return await read();
    } catch (error) {
      if (!isWrongType(error)) throw error;
    }
  }
  return `(unknown type of ${key})`;
}

function isWrongType(error: unknown): boolean {
  return error instanceof Error && error.message === WRONGTYPE_MESSAGE;
}

/** The keys whose name or value contains `text`. */
export function holding(stored: StoredText, text: string): string[] {
  return [...stored].filter(([key, value]) => key.includes(text) || value.includes(text)).map(([key]) => key);
}
