import { describe, expect, it } from 'vitest';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { storeBackends } from './backends.js';

const redis = await requireRedis();
const backends = storeBackends(redis, await requireCluster());
const conv = { teamId: 'T1', campaignId: 'camp-3', customerNumber: '+15550001111' };

describe.each(backends)('ConversationRepo ($name)', ({ create }) => {
  it('remembers one thread per channel and finds the conversation from a thread', async () => {
    const { conversations } = create();
    expect(await conversations.threads(conv)).toEqual(new Map());
    await conversations.recordThread(conv, 'C1', '100.1', { customerName: 'Ann', campaignName: 'SMS' });
    await conversations.recordThread(conv, 'C2', '200.2', { customerName: 'Ann' });
    expect(await conversations.threads(conv)).toEqual(
      new Map([
        ['C1', '100.1'],
        ['C2', '200.2'],
      ]),
    );
    expect(await conversations.findThread('T1', 'C2', '200.2')).toEqual({
      ...conv,
      channelId: 'C2',
      threadTs: '200.2',
      state: 'open',
      facts: { customerName: 'Ann' },
      // A channel whose readers were never learned is masked.
      customerDataShown: false,
    });
    expect(await conversations.findThread('T1', 'C2', '999.9')).toBeNull();
    expect(await conversations.findThread('T2', 'C2', '200.2')).toBeNull();
  });

  it('links a session per thread; a session the platform reports is kept apart until someone links it', async () => {
    const { conversations } = create();
    await conversations.recordThread(conv, 'C1', '1.1', {});
    await conversations.recordThread(conv, 'C2', '2.2', {});
    await conversations.linkSession('T1', 'C1', '1.1', 'sess-a');
    expect((await conversations.findThread('T1', 'C1', '1.1'))?.sessionId).toBe('sess-a');
    expect((await conversations.findThread('T1', 'C2', '2.2'))?.sessionId).toBeUndefined();
    await conversations.reportSession('T1', 'C1', '1.1', 'sess-b');
    expect(await conversations.findThread('T1', 'C1', '1.1')).toMatchObject({
      sessionId: 'sess-a',
      reportedSessionId: 'sess-b',
    });
    await conversations.linkSession('T1', 'C1', '1.1', 'sess-b');
    const switched = await conversations.findThread('T1', 'C1', '1.1');
    expect(switched?.sessionId).toBe('sess-b');
    expect(switched?.reportedSessionId).toBeUndefined();
  });

  it('closing clears sessions, marks threads closed and lets the next message open a new card', async () => {
    const { conversations } = create();
    await conversations.recordThread(conv, 'C1', '1.1', { customerName: 'Ann' }, 'sess-1');
    expect(await conversations.close(conv)).toEqual([{ channelId: 'C1', threadTs: '1.1' }]);
    const thread = await conversations.findThread('T1', 'C1', '1.1');
    expect(thread?.state).toBe('closed');
    expect(thread?.sessionId).toBeUndefined();
    expect(await conversations.threads(conv)).toEqual(new Map());
    expect(await conversations.facts(conv)).toEqual({ customerName: 'Ann' });
  });

  it('recognises the echo of each reply sent from Slack exactly once', async () => {
    const { conversations } = create();
    await conversations.expectEcho(conv, 'On my way');
    await conversations.expectEcho(conv, 'On my way');
    expect(await conversations.takeEcho(conv, 'Something else')).toBe(false);
    expect(await conversations.takeEcho({ ...conv, customerNumber: '+1999' }, 'On my way')).toBe(false);
    expect(await conversations.takeEcho(conv, ' On my way ')).toBe(true);
    expect(await conversations.takeEcho(conv, 'On my way')).toBe(true);
    expect(await conversations.takeEcho(conv, 'On my way')).toBe(false);
  });
});

describe.each(backends)('ConversationRepo thread replies ($name)', ({ create }) => {
  it('keeps a record per reply in its thread, and nothing for other threads or teams', async () => {
    const { conversations } = create();
    await conversations.recordThread(conv, 'C1', '1.1', {});
    expect(await conversations.findReply('T1', 'C1', '1.1', '1.5')).toBeNull();
    const reply = {
      user: 'U1',
      text: 'On my way',
      state: 'sending' as const,
      attempts: 1,
      updatedAt: 1_700_000_000_000,
    };
    await conversations.saveReply('T1', 'C1', '1.1', '1.5', reply);
    expect(await conversations.findReply('T1', 'C1', '1.1', '1.5')).toEqual(reply);
    await conversations.saveReply('T1', 'C1', '1.1', '1.5', { ...reply, state: 'failed', noticeTs: '1.6' });
    expect(await conversations.findReply('T1', 'C1', '1.1', '1.5')).toEqual({
      ...reply,
      state: 'failed',
      noticeTs: '1.6',
    });
    expect(await conversations.findReply('T2', 'C1', '1.1', '1.5')).toBeNull();
    expect(await conversations.findReply('T1', 'C1', '2.2', '1.5')).toBeNull();
    // Reply records live beside the thread's own fields without disturbing them.
    expect(await conversations.findThread('T1', 'C1', '1.1')).toMatchObject({ state: 'open', facts: {} });
  });

  it('gives each send attempt of a reply to exactly one caller', async () => {
    const { conversations } = create();
    const claims = await Promise.all(Array.from({ length: 5 }, () => conversations.claimSend('T1', 'C1', '1.5', 0)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await conversations.claimSend('T1', 'C1', '1.5', 1)).toBe(true);
    expect(await conversations.claimSend('T1', 'C1', '1.6', 0)).toBe(true);
    expect(await conversations.claimSend('T2', 'C1', '1.5', 0)).toBe(true);
  });

  it('forgets an expected echo for a reply that never reached the platform', async () => {
    const { conversations } = create();
    await conversations.expectEcho(conv, 'Not delivered');
    await conversations.forgetEcho(conv, 'Not delivered');
    expect(await conversations.takeEcho(conv, 'Not delivered')).toBe(false);
  });
});

describe.each(backends)('AgentLinkRepo ($name)', ({ create }) => {
  it('maps Slack users to platform agent ids per workspace', async () => {
    const { agentLinks } = create();
    await agentLinks.set('T1', 'U1', 'agent-31');
    expect(await agentLinks.get('T1', 'U1')).toBe('agent-31');
    expect(await agentLinks.get('T2', 'U1')).toBeUndefined();
    expect(await agentLinks.all('T1')).toEqual({ U1: 'agent-31' });
    expect(await agentLinks.remove('T1', 'U1')).toBe(true);
    expect(await agentLinks.get('T1', 'U1')).toBeUndefined();
  });
});
