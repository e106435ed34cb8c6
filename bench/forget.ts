/**
 * Uninstall: how long forgetting one workspace takes in a store holding many others, and what is left of it.
 * On its own redis-server and its own three-master Cluster: one workspace with conversations (names, numbers,
 * reply texts, claims), queued events and dead letters, among `otherKeys` keys of other workspaces. The
 * baseline is a bare SCAN of the whole key space (what finding the workspace's keys cannot beat); then
 * `Store.forgetWorkspace`, then a scan of every key and value for the workspace and its customers.
 */
import { randomBytes } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';
import { createStore, type Store } from '../src/store/index.js';
import { startRedisCluster } from './lib/redis-cluster.js';
import { startRedisServer } from './lib/redis-server.js';

export interface ForgetFigures {
  backend: 'redis' | 'cluster';
  /** Keys in the store before (the workspace's and the others'). */
  keys: number;
  /** The workspace's keys before. */
  own: number;
  scanMs: number;
  forgetMs: number;
  /** Keys or values naming the workspace or holding its customers' data, after. */
  left: number;
  /** Keys of other workspaces lost (must be 0). */
  othersLost: number;
}

const TEAM = 'T0BENCHGONE';
const CUSTOMER = 'Benedetta Forgotten';

export async function runForget(opts: { otherKeys: number; conversations: number }): Promise<ForgetFigures[]> {
  const out: ForgetFigures[] = [];
  const server = await startRedisServer();
  try {
    out.push(await measure('redis', server.client, { redisUrl: server.url }, opts));
  } finally {
    await server.close();
  }
  const cluster = await startRedisCluster();
  try {
    out.push(await measure('cluster', cluster.client, { redisCluster: { nodes: cluster.seeds } }, opts));
  } finally {
    await cluster.close();
  }
  return out;
}

async function measure(
  backend: ForgetFigures['backend'],
  client: Redis | Cluster,
  where: { redisUrl: string } | { redisCluster: { nodes: ReadonlyArray<{ host: string; port: number }> } },
  opts: { otherKeys: number; conversations: number },
): Promise<ForgetFigures> {
  const store = createStore({ ...where, secretsKey: randomBytes(32) });
  try {
    await fillOthers(store, client, opts.otherKeys);
    await fillWorkspace(store, opts.conversations);
    const nodes = client instanceof Cluster ? client.nodes('master') : [client];
    const all = await scanNodes(nodes);
    const own = all.filter(([, k]) => store.keys.workspaceOf(k) === TEAM).length;

    let started = performance.now();
    await scanNodes(nodes);
    const scanMs = performance.now() - started;
    started = performance.now();
    await store.forgetWorkspace(TEAM);
    const forgetMs = performance.now() - started;

    const after = await scanNodes(nodes);
    // Every key but the other workspaces' bulk ones is read whole: names and values.
    const rest = after.filter(([, k]) => !store.keys.workspaceOf(k)?.startsWith('T0OTHER'));
    const left = await countHolding(rest, [TEAM, CUSTOMER, '+1555033']);
    const others = (keys: ReadonlyArray<[Redis, string]>) =>
      keys.filter(([, k]) => store.keys.workspaceOf(k)?.startsWith('T0OTHER')).length;
    const othersLost = others(all) - others(after);
    return { backend, keys: all.length, own, scanMs, forgetMs, left, othersLost };
  } finally {
    await store.close();
  }
}

/** Other workspaces' conversations, written in bulk (a conversation hash per key; a Cluster pipelines per node). */
async function fillOthers(store: Store, client: Redis | Cluster, keys: number): Promise<void> {
  const batch = 2_000;
  for (let i = 0; i < keys; i += batch) {
    const writes: Array<Promise<unknown>> = [];
    for (let j = i; j < Math.min(keys, i + batch); j++) {
      const key = store.keys.conversation(`T0OTHER${j % 1000}`, 'camp-1', `+1444${String(j).padStart(7, '0')}`);
      writes.push(client.hset(key, { customerName: `Other ${j}`, state: 'open' }));
    }
    await Promise.all(writes);
  }
}

/** The workspace to forget: conversations with replies and claims, settings, queued events, a dead letter. */
async function fillWorkspace(store: Store, conversations: number): Promise<void> {
  await store.workspaces.setApiKey(TEAM, 'ck_live_bench_forget_0000000000', { verifiedBy: 'U1' });
  await store.workspaces.createHookToken(TEAM);
  await store.routes.add({ teamId: TEAM, campaignId: '*', triggerName: 'message_received', channelId: 'C1' });
  await store.agentLinks.set(TEAM, 'U1', 'agent-1');
  for (let i = 0; i < conversations; i++) {
    const ref = { teamId: TEAM, campaignId: 'camp-1', customerNumber: `+1555033${String(i).padStart(4, '0')}` };
    const ts = `${1700000000 + i}.000100`;
    await store.conversations.recordThread(ref, 'C1', ts, { customerName: CUSTOMER }, `sess-${i}`);
    await store.conversations.saveReply(TEAM, 'C1', ts, `${ts}1`, {
      user: 'U1',
      text: `Reply to ${CUSTOMER}`,
      state: 'sent',
      attempts: 1,
      updatedAt: 1,
    });
    await store.conversations.claim(TEAM, 'C1', ts, 'U1');
    if (i % 5 === 0) {
      await store.queue.enqueueOnce(
        `bench-${i}`,
        {
          teamId: TEAM,
          orderKey: JSON.stringify(['conversation', TEAM, 'camp-1', ref.customerNumber]),
          payload: { customerName: CUSTOMER, customerNumber: ref.customerNumber },
        },
        60_000,
      );
    }
  }
  await store.queue.bury({
    id: '1-1',
    teamId: TEAM,
    orderKey: 'x',
    payload: { customerName: CUSTOMER },
    error: 'not_in_channel',
    attempts: 1,
    enqueuedAt: 1,
    failedAt: 1,
  });
}

/** Every key, with the master that holds it. */
async function scanNodes(nodes: readonly Redis[]): Promise<Array<[Redis, string]>> {
  const keys: Array<[Redis, string]> = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'COUNT', 1000);
      for (const key of batch) keys.push([node, key]);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys;
}

/** Keys whose name or value (any type) holds one of `texts`. */
async function countHolding(keys: ReadonlyArray<[Redis, string]>, texts: readonly string[]): Promise<number> {
  let found = 0;
  for (const [node, key] of keys) {
    const type = await node.type(key);
    if (type === 'none') continue;
    const value =
      type === 'string'
        ? await node.get(key)
        : type === 'hash'
          ? JSON.stringify(await node.hgetall(key))
          : type === 'set'
            ? JSON.stringify(await node.smembers(key))
            : type === 'list'
              ? JSON.stringify(await node.lrange(key, 0, -1))
              : JSON.stringify(await node.xrange(key, '-', '+'));
    if (texts.some((t) => key.includes(t) || (value ?? '').includes(t))) found++;
  }
  return found;
}
