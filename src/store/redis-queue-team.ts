/**
 * One workspace's share of the Redis queue, apart from the entries' own life cycle (redis-queue.ts): what it
 * parked outside the queue and how much its backlog holds (the caps), and forgetting all of it on uninstall.
 * Every key here carries the hash tag of the workspace's queue group, so each step stays valid on a Redis Cluster.
 */
import { z } from 'zod';
import { queueGroup, type Keys } from './keys.js';
import { entryIdOfSortable, sortableEntryId } from './queue-backend.js';
import type { BacklogUsage, ParkedWork } from './queue.js';
import type { redisDeadLetters } from './redis-dead-letters.js';
import type { RedisClient } from './redis-connection.js';

const pairReply = z.tuple([z.number(), z.number()]);

export async function backlogUsage(redis: RedisClient, keys: Keys, teamId: string): Promise<BacklogUsage> {
  const [events, bytes] = pairReply.parse(
    await redis.campaignQueueUsage(
      keys.queueTeamStream(teamId),
      keys.queueUsage(teamId),
      keys.queueDead(teamId),
      keys.queueMarks(teamId),
    ),
  );
  return { events, bytes };
}

/** Parked items per (team, place), counted in the team's backlog by the same scripts that add and remove them. */
export function redisParkedWork(redis: RedisClient, keys: Keys): ParkedWork {
  return {
    put: async (teamId, place, id, json, rank) =>
      (await redis.campaignQueuePark(
        keys.queueParked(teamId, place),
        keys.queueUsage(teamId),
        keys.queueParkedOrder(teamId, place),
        id,
        json,
        rank,
        sortableEntryId(id),
      )) === 1,
    head: async (teamId, place, limit) => {
      if (limit <= 0) return [];
      const flat = await redis.zrange(keys.queueParkedOrder(teamId, place), 0, limit - 1, 'WITHSCORES');
      const order: { id: string; rank: number }[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2)
        order.push({ id: entryIdOfSortable(flat[i]!), rank: Number(flat[i + 1]) });
      if (order.length === 0) return [];
      const values = await redis.hmget(keys.queueParked(teamId, place), ...order.map((o) => o.id));
      return order.flatMap((o, i) => {
        const json = values[i];
        return typeof json === 'string' ? [{ ...o, json }] : [];
      });
    },
    ids: (teamId, place) => redis.hkeys(keys.queueParked(teamId, place)),
    get: async (teamId, place, ids) => {
      if (ids.length === 0) return {};
      const values = await redis.hmget(keys.queueParked(teamId, place), ...ids);
      const found: Record<string, string> = {};
      ids.forEach((id, i) => {
        const json = values[i];
        if (typeof json === 'string') found[id] = json;
      });
      return found;
    },
    count: (teamId, place) => redis.hlen(keys.queueParked(teamId, place)),
    remove: async (teamId, place, ids) =>
      ids.length === 0
        ? 0
        : redis.campaignQueueUnpark(
            keys.queueParked(teamId, place),
            keys.queueUsage(teamId),
            keys.queueParkedOrder(teamId, place),
            ...ids,
            ...ids.map(sortableEntryId),
          ),
  };
}

/**
 * Forgets a workspace's queue entries (it uninstalled the app): waiting and pending entries, its dedup marks,
 * its dead letters and their count. Returns how many entries and dead letters went.
 */
export async function forgetTeamEntries(
  redis: RedisClient,
  keys: Keys,
  teamId: string,
  deadLetters: ReturnType<typeof redisDeadLetters>,
): Promise<number> {
  const group = queueGroup(teamId);
  // Off the readers' list first, so that no reader takes one of its entries while they go.
  await redis.srem(keys.queueTeams(group), teamId);
  const stream = keys.queueTeamStream(teamId);
  const entries = await redis.xlen(stream);
  // Every key here carries the team's queue group's hash tag: one MULTI on a Cluster too.
  const tx = redis.multi();
  const dead = await deadLetters.forget(tx, teamId);
  tx.del(stream, keys.queueMarks(teamId));
  // The group's delivery records go with the stream; no other key holds the team's entries.
  await tx.exec();
  return entries + dead;
}
