import type { Keys } from './keys.js';
import { entryIdOfSortable, sortableEntryId } from './queue-backend.js';
import type { OutboxItems } from './queue.js';
import type { RedisClient } from './redis-connection.js';

/**
 * Each channel's outbox items, counted in the team's backlog by the same scripts that add and remove them; their keys
 * carry the hash tag of the workspace's queue group, so each script stays valid on a Redis Cluster.
 */
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
    get: async (teamId, channelId, ids) => {
      if (ids.length === 0) return {};
      const values = await redis.hmget(keys.queueOutbox(teamId, channelId), ...ids);
      const found = (id: string, i: number): [string, string][] =>
        typeof values[i] === 'string' ? [[id, values[i]]] : [];
      return Object.fromEntries(ids.flatMap(found));
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
