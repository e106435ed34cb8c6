/**
 * Dead letters in Redis: one capped list per workspace (newest first) beside its count, so one workspace's
 * failures never push another's out; letters older than `DEAD_LETTER_MAX_AGE_MS` go. Their bytes count toward the
 * workspace's byte cap (`usage` deadBytes, changed by the same scripts that add and remove letters).
 * Every key here shares the queue's hash tag, so each script stays valid on a Redis Cluster.
 */
import { z } from 'zod';
import { queueGroup, type Keys } from './keys.js';
import { DEAD_LETTER_CAP, DEAD_LETTER_MAX_AGE_MS, mergeLetters, shownLetters } from './queue.js';
import type { DeadLetter, DeadLetters } from './queue.js';
import type { RedisClient } from './redis-connection.js';

const deadLetter = z.object({
  id: z.string(),
  teamId: z.string(),
  orderKey: z.string(),
  payload: z.unknown(),
  error: z.string(),
  causes: z.array(z.object({ channel: z.string(), error: z.string() })).optional(),
  attempts: z.number(),
  enqueuedAt: z.number(),
  failedAt: z.number(),
  retried: z.boolean().optional(),
});

function parseDeadLetter(raw: string): DeadLetter | undefined {
  try {
    const { causes, retried, ...rest } = deadLetter.parse(JSON.parse(raw));
    return { ...rest, ...(causes ? { causes } : {}), ...(retried ? { retried } : {}) };
  } catch {
    return undefined;
  }
}

export function redisDeadLetters(redis: RedisClient, keys: Keys) {
  /** The workspace's letters as stored, newest first. */
  const stored = (teamId: string): Promise<string[]> => redis.lrange(keys.queueDead(teamId), 0, DEAD_LETTER_CAP - 1);

  return {
    /** One letter per event: a twin already kept is replaced by both merged, in one step (read again if it changed). */
    async bury(letter: DeadLetter): Promise<boolean> {
      for (;;) {
        const twin = (await stored(letter.teamId))
          .map((raw) => ({ raw, kept: parseDeadLetter(raw) }))
          .find(({ kept }) => kept?.id === letter.id);
        // Stored id first: BURY finds a letter of the same event by how it starts.
        const { id, ...rest } = twin?.kept ? mergeLetters(letter, twin.kept) : letter;
        const buried = await redis.campaignQueueBury(
          keys.queueDead(letter.teamId),
          keys.queueDeadCounts(queueGroup(letter.teamId)),
          keys.queueUsage(letter.teamId),
          keys.queueTeamStream(letter.teamId),
          keys.queueMarks(letter.teamId),
          JSON.stringify({ id, ...rest }),
          DEAD_LETTER_CAP,
          letter.teamId,
          Date.now() - DEAD_LETTER_MAX_AGE_MS,
          DEAD_LETTER_MAX_AGE_MS,
          twin?.raw ?? '',
          twin || letter.retried ? 0 : 1,
        );
        if (buried === 1) return !twin && !letter.retried;
      }
    },

    async take(teamId: string, id: string): Promise<DeadLetter | undefined> {
      for (const raw of await stored(teamId)) {
        const letter = parseDeadLetter(raw);
        if (letter?.id !== id) continue;
        // Removing that exact item: of two admins retrying it at once, one gets it.
        return (await redis.campaignQueueTakeDead(keys.queueDead(teamId), keys.queueUsage(teamId), raw)) === 1
          ? letter
          : undefined;
      }
      return undefined;
    },

    async list(teamId: string, limit?: number): Promise<DeadLetters> {
      const [raw, count] = await Promise.all([
        stored(teamId),
        redis.hget(keys.queueDeadCounts(queueGroup(teamId)), teamId),
      ]);
      return shownLetters(Number(count ?? 0), raw.map(parseDeadLetter), limit);
    },

    /** Adds the steps that forget the workspace's letters (its list, its count and their bytes). */
    async forget(tx: ReturnType<RedisClient['multi']>, teamId: string): Promise<number> {
      const own = await redis.llen(keys.queueDead(teamId));
      tx.del(keys.queueDead(teamId));
      tx.hdel(keys.queueDeadCounts(queueGroup(teamId)), teamId);
      tx.hdel(keys.queueUsage(teamId), 'deadBytes');
      return own;
    },
  };
}
