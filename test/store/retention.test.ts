/**
 * CONVERSATION_RETENTION_DAYS: what the store keeps of a conversation — names, number, reply texts, the
 * session link, the claim, the open-thread index — is forgotten that long after its last activity, closing
 * included; agent links a year after they were last set or used. Nothing about a customer is kept without an
 * expiry. In memory on a moved clock; in Redis by the expiry each key carries.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeys, createStore, SecretBox, type Store } from '../../src/store/index.js';
import { CustomerNames } from '../../src/store/customer-names.js';
import { AgentLinkRepo, ConversationRepo } from '../../src/store/conversations.js';
import { ChannelAudienceRepo } from '../../src/store/channel-audiences.js';
import { MemoryKeyValueStore } from '../../src/store/memory-kv.js';
import { requireRedis } from '../support/redis.js';
import { holding, redisText } from '../support/stored-text.js';

const redis = await requireRedis();
const DAY = 86_400_000;
const RETENTION_MS = 7 * DAY;
const ref = { teamId: 'T1', campaignId: 'camp-1', customerNumber: '+15550170001' };
const reply = {
  user: 'U1',
  text: 'your parcel is at the back door',
  state: 'sent' as const,
  attempts: 1,
  updatedAt: 1,
};

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

/** A conversation answered in one thread and claimed there; `close` closes it. */
async function converse(conversations: ConversationRepo): Promise<void> {
  await conversations.recordThread(ref, 'C1', '100.1', { customerName: 'Rita Retained' }, 'sess-1');
  await conversations.saveReply('T1', 'C1', '100.1', '100.2', reply);
  expect(await conversations.claim('T1', 'C1', '100.1', 'U1')).toEqual({ ok: true });
}

describe('conversation retention (memory, on a moved clock)', () => {
  function repos() {
    const clock = { now: 1_700_000_000_000 };
    const kv = new MemoryKeyValueStore({ now: () => clock.now });
    open.push(kv);
    const keys = createKeys();
    return {
      clock,
      kv,
      conversations: new ConversationRepo(
        kv,
        keys,
        new CustomerNames(kv, keys, SecretBox.ephemeral()),
        new ChannelAudienceRepo(kv, keys),
        RETENTION_MS,
      ),
      links: new AgentLinkRepo(kv, keys),
    };
  }

  it('forgets a closed conversation RETENTION after it closed, not before', async () => {
    const { clock, kv, conversations } = repos();
    await converse(conversations);
    clock.now += 5 * DAY;
    await conversations.close(ref);
    clock.now += RETENTION_MS - 1;
    expect((await conversations.findThread('T1', 'C1', '100.1'))?.owner).toBe('U1');
    expect(await conversations.findReply('T1', 'C1', '100.1', '100.2')).not.toBeNull();
    expect(await conversations.facts(ref)).toEqual({ customerName: 'Rita Retained' });
    clock.now += 2;
    expect(await conversations.findThread('T1', 'C1', '100.1')).toBeNull();
    expect(await conversations.facts(ref)).toEqual({});
    // Only the store's key for naming customers in keys is left: nothing about this one.
    expect(await kv.keysWithPrefix('')).toEqual([createKeys().customerNameKey()]);
  });

  it('forgets an open conversation nobody touched for RETENTION, its open-thread index with it', async () => {
    const { clock, kv, conversations } = repos();
    await converse(conversations);
    expect(await conversations.openThreads('T1')).toHaveLength(1);
    clock.now += RETENTION_MS + 1;
    expect(await conversations.openThreads('T1')).toEqual([]);
    // The echo mark of the reply expired long before; nothing else was left behind (but the key-naming key).
    expect(await kv.keysWithPrefix('')).toEqual([createKeys().customerNameKey()]);
  });

  it('keeps agent links while they are used, and forgets them a year after the last use', async () => {
    const { clock, links } = repos();
    await links.set('T1', 'U1', 'agent-1');
    clock.now += 300 * DAY;
    expect(await links.get('T1', 'U1')).toBe('agent-1'); // used: another year
    clock.now += 300 * DAY;
    expect(await links.all('T1')).toEqual({ U1: 'agent-1' });
    clock.now += 66 * DAY;
    expect(await links.all('T1')).toEqual({});
  });
});

describe('conversation retention (redis)', () => {
  function store(): Store {
    const s = createStore({
      redisUrl: redis.url,
      keyPrefix: `${redis.prefix}${randomBytes(3).toString('hex')}:`,
      secretsKey: randomBytes(32),
      conversationRetentionMs: RETENTION_MS,
    });
    open.push(s);
    return s;
  }

  it('gives every key about the customer an expiry of at most RETENTION once the conversation closes', async () => {
    const s = store();
    await converse(s.conversations);
    await s.conversations.expectEcho(ref, reply.text);
    await s.agentLinks.set('T1', 'U1', 'agent-1');
    await s.conversations.close(ref);

    const stored = await redisText(redis.redis, s.keys.prefix);
    const aboutCustomer = new Set(
      ['Rita Retained', ref.customerNumber, reply.text, 'sess-1'].flatMap((text) => holding(stored, text)),
    );
    expect(aboutCustomer.size).toBeGreaterThanOrEqual(2); // the conversation and its thread (the echo is hashed)
    for (const key of [...aboutCustomer, s.keys.threadOwner('T1', 'C1', '100.1')]) {
      const ttl = await redis.redis.pttl(key);
      expect([key, ttl > RETENTION_MS - 60_000 && ttl <= RETENTION_MS]).toEqual([key, true]);
    }
    const linksTtl = await redis.redis.pttl(s.keys.agentLinks('T1'));
    expect(linksTtl).toBeGreaterThan(364 * DAY);
    expect(linksTtl).toBeLessThanOrEqual(365 * DAY);
    // Nothing the conversation left has no expiry (the store's key for naming customers in keys is not its).
    for (const key of stored.keys())
      if (key !== s.keys.customerNameKey()) expect([key, await redis.redis.pttl(key)]).not.toEqual([key, -1]);
  });
});
