/**
 * A throwaway three-master Redis Cluster on local ports (`redis-server --cluster-enabled yes` ×3, joined with
 * `redis-cli --cluster create`), owned by the caller like `startRedisServer`: tests and the fault suite run the
 * store, the queue and whole bots against it, and may stop and restart a master.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster } from 'ioredis';
import { freePort } from './net.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

const run = promisify(execFile);

export interface RedisCluster {
  /** The masters, each restartable on its own port and data. */
  readonly nodes: readonly RedisServer[];
  /** `host:port,…`, as REDIS_CLUSTER_NODES takes it. */
  readonly spec: string;
  readonly seeds: ReadonlyArray<{ host: string; port: number }>;
  /** A cluster client for inspecting what is stored. */
  readonly client: Cluster;
  /** Resolves once every node reports `cluster_state:ok` (after a restart, too). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Ports are "free a moment ago" (`freePort`): another test file, or this node's own bus port, may take one
 * before redis-server binds it, and the server exits. Such a start is tried again on fresh ports.
 */
const START_TRIES = 3;

export async function startRedisCluster(opts: { durable?: boolean } = {}): Promise<RedisCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (attempt >= START_TRIES) throw err;
    }
  }
}

async function startOnce(opts: { durable?: boolean }): Promise<RedisCluster> {
  const nodes: RedisServer[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      // The cluster bus needs a port of its own; without --cluster-port it would be port + 10000.
      const busPort = await freePort();
      nodes.push(
        await startRedisServer({
          ...opts,
          extraArgs: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            // Long enough that a node starved of CPU on a busy test machine is not voted failed (with no replica,
            // a failed master takes the whole cluster down until it is cleared, and every command waits).
            '--cluster-node-timeout',
            '15000',
            '--cluster-port',
            String(busPort),
          ],
        }),
      );
    }
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
  } catch (err) {
    await Promise.all(nodes.map((n) => n.close()));
    throw new Error(`could not start a Redis Cluster: ${err instanceof Error ? err.message : String(err)}`);
  }
  const seeds = nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  const ready = async () => {
    for (let i = 0; i < 400; i++) {
      const states = await Promise.all(nodes.map((n) => n.client.call('CLUSTER', 'INFO').then(String, () => '')));
      if (states.every((s) => s.includes('cluster_state:ok'))) return;
      await sleep(25);
    }
    throw new Error('the Redis Cluster did not reach cluster_state:ok');
  };
  try {
    await ready();
  } catch (err) {
    await Promise.all(nodes.map((n) => n.close()));
    throw err;
  }
  const client = new Cluster(seeds, { redisOptions: { maxRetriesPerRequest: 1 } });
  client.on('error', () => undefined);
  return {
    nodes,
    spec: seeds.map((s) => `${s.host}:${s.port}`).join(','),
    seeds,
    client,
    ready,
    async close() {
      client.disconnect();
      await Promise.all(nodes.map((n) => n.close()));
    },
  };
}
