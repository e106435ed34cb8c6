/**
 * One workspace's share of the Redis queue, apart from the entries' own life cycle (redis-queue.ts): what is
 * waiting in its channels' outboxes and how much its backlog holds (the caps), and forgetting all of it on uninstall.
 * Every key here carries the hash tag of the workspace's queue group, so each step stays valid on a Redis Cluster.
 */
import { z } from 'zod';
import { queueGroup, type Keys } from './keys.js';
import { entryIdOfSortable, sortableEntryId } from './queue-backend.js';
import type { BacklogUsage, OutboxItems } from './queue.js';
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

/** Each channel's outbox items, counted in the team's backlog by the same scripts that add and remove them. */
export function redisOutboxItems(redis: RedisClient, keys: Keys): OutboxItems {
  return {
    put: async (teamId, channelId, id, json, rank) =>
      (await redis.campaignQueuePark(
        keys.queueOutbox(teamId, channelId),
        keys.queueUsage(teamId),
        keys.queueOutboxOrder(teamId, channelId),
        id,
        json,
        rank,
        sortableEntryId(id),
      )) === 1,
    head: async (teamId, channelId, limit) => {
      if (limit <= 0) return [];
      const flat = await redis.zrange(keys.queueOutboxOrder(teamId, channelId), 0, limit - 1, 'WITHSCORES');
      const order: { id: string; rank: number }[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2)
        order.push({ id: entryIdOfSortable(flat[i]!), rank: Number(flat[i + 1]) });
      if (order.length === 0) return [];
      const values = await redis.hmget(keys.queueOutbox(teamId, channelId), ...order.map((o) => o.id));
      return order.flatMap((o, i) => {
        const json = values[i];
        return typeof json === 'string' ? [{ ...o, json }] : [];
      });
    },
    ids: (teamId, channelId) => redis.hkeys(keys.queueOutbox(teamId, channelId)),
    get: async (teamId, channelId, ids) => {
      if (ids.length === 0) return {};
      const values = await redis.hmget(keys.queueOutbox(teamId, channelId), ...ids);
      const found: Record<string, string> = {};
      ids.forEach((id, i) => {
        const json = values[i];
        if (typeof json === 'string') found[id] = json;
      });
      return found;
    },
    count: (teamId, channelId) => redis.hlen(keys.queueOutbox(teamId, channelId)),
    remove: async (teamId, channelId, ids) =>
      ids.length === 0
        ? 0
        : redis.campaignQueueUnpark(
            keys.queueOutbox(teamId, channelId),
            keys.queueUsage(teamId),
            keys.queueOutboxOrder(teamId, channelId),
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
