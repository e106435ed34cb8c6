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
      // WITHSCORES: member, rank, member, rank…
      const flat = await redis.zrange(keys.queueOutboxOrder(teamId, channelId), 0, limit - 1, 'WITHSCORES');
      const ids = flat.filter((_, i) => i % 2 === 0).map(entryIdOfSortable);
      if (ids.length === 0) return [];
      const values = await redis.hmget(keys.queueOutbox(teamId, channelId), ...ids);
      return ids.flatMap((id, i) => {
        const json = values[i];
        return typeof json === 'string' ? [{ id, json, rank: Number(flat[2 * i + 1]) }] : [];
      });
    },
    get: async (teamId, channelId, ids) => {
      if (ids.length === 0) return {};
      const values = await redis.hmget(keys.queueOutbox(teamId, channelId), ...ids);
      return Object.fromEntries(ids.flatMap((id, i) => (typeof values[i] === 'string' ? [[id, values[i]]] : [])));
    },
    count: (teamId, channelId) => redis.hlen(keys.queueOutbox(teamId, channelId)),
    remove: (teamId, channelId, ids) =>
      redis.campaignQueueUnpark(
        keys.queueOutbox(teamId, channelId),
        keys.queueUsage(teamId),
        keys.queueOutboxOrder(teamId, channelId),
        ...ids,
        ...ids.map(sortableEntryId),
      ),
  };
}
