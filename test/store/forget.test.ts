/**
 * `Store.forgetWorkspace` on every backend: a workspace that used every part of the store — settings,
 * conversations, replies, claims, timers, call outboxes, marks, caches, queued events (one of them running),
 * dead letters — is forgotten; a scan of everything stored then finds no key or value naming it and none of
 * its customers' names, numbers or message texts, while another workspace keeps every bit of its own.
 */
import { describe, expect, it } from 'vitest';
import type { Installation } from '@slack/oauth';
import { workspaceTimerId, type Store } from '../../src/store/index.js';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { holding, memoryText, redisText, type StoredText } from '../support/stored-text.js';
import { storeBackends, type Backend } from './backends.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const cluster = await requireCluster();
const backends = storeBackends(redis, cluster);

interface Tenant {
  team: string;
  name: string;
  number: string;
  text: string;
}
const GONE: Tenant = { team: 'T0FORGET01', name: 'Oriana Forgotten', number: '+15550190001', text: 'gate code 4417' };
const KEPT: Tenant = { team: 'T0KEPT0002', name: 'Kepler Stays', number: '+15550190002', text: 'blue door please' };
const CUSTOMER_DATA = (t: Tenant) => [t.team, t.name, t.number, t.text];

/** Uses every part of the store the way the bot does for one workspace. */
async function fill(store: Store, t: Tenant): Promise<void> {
  const { team } = t;
  await store.workspaces.setApiKey(team, `ck_live_${team}_0000000000000000`, { verifiedBy: 'U0ADMIN' });
  await store.workspaces.createHookToken(team);
  await store.installations.storeInstallation({
    team: { id: team, name: `${t.name} Ltd` },
    enterprise: undefined,
    user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
    bot: { id: 'B1', userId: 'U0BOT', token: `xoxb-${team}`, scopes: ['chat:write'] },
    tokenType: 'bot',
    isEnterpriseInstall: false,
  } satisfies Installation<'v2', false>);
  await store.routes.add({ teamId: team, campaignId: 'camp-1', triggerName: 'message_received', channelId: 'C1' });
  const ref = { teamId: team, campaignId: 'camp-1', customerNumber: t.number };
  await store.conversations.recordThread(ref, 'C1', '100.1', { customerName: t.name }, 'sess-1');
  await store.conversations.saveReply(team, 'C1', '100.1', '100.2', {
    user: 'U0AGENT',
    text: t.text,
    state: 'sent',
    attempts: 1,
    updatedAt: 1,
  });
  await store.conversations.claim(team, 'C1', '100.1', 'U0AGENT');
  await store.conversations.startWaiting(team, 'C1', '100.1', Date.now());
  await store.conversations.expectEcho(ref, t.text);
  await store.conversations.claimSend(team, 'C1', '100.2', 1);
  await store.agentLinks.set(team, 'U0AGENT', 'agent-7');
  await store.handoffSla.set(team, 'C1', { slaS: 600 });
  await store.unroutedEvents.record(team, 'entry-unrouted', {
    trigger: 'call_completed',
    campaignId: 'camp-2',
    at: Date.now(),
  });
  const setAt = Date.now();
  await store.reports.setDigest(team, 'C1', {
    cadence: 'daily',
    campaignId: '*',
    time: '09:00',
    timeZone: 'UTC',
    setBy: 'U0ADMIN',
    setAt,
  });
  await store.reports.setLastFigures(team, 'C1', { at: setAt, totals: {} });
  await store.reports.setQuotaAlert(team, 'C1', { thresholds: [80], setBy: 'U0ADMIN', setAt });
  await store.reports.mark('digest', team, 'C1', '2024-03-08', 60_000);
  const timer = { id: workspaceTimerId(team, 'C1'), dueAt: Date.now() - 1 };
  await store.timers.set('digest', timer.id, timer.dueAt);
  await store.timers.claim('digest', timer, 'replica-1', 60_000);
  const call = { teamId: team, channelId: 'C2' };
  await store.outbox.add(call, 'routine', { id: '1-1', json: JSON.stringify({ customerName: t.name, to: t.number }) });
  await store.leases.take(store.outbox.lease(call), 'replica-1', 60_000);
  await store.outbox.startRollup(call, ['1-1'], 60_000);
  await store.channelPauses.pause(team, 'C3', 'not_in_channel');
  await store.channelPauses.setSubscriber(team, 'C3', 'U0ADMIN');
  await store.cache.remember(team, 'slack-user-name:U0AGENT', 60_000, () => Promise.resolve(t.name));
  await store.dedup.markOnce(team, 'slack-event', 'Ev1', 60_000);
}

/** Queue entries of the workspace: one dead-lettered, one running (until `running` resolves), one behind it. */
async function enqueue(store: Store, t: Tenant): Promise<void> {
  const event = (kind: string, orderKey: string) => ({
    teamId: t.team,
    orderKey: JSON.stringify(['conversation', t.team, orderKey]),
    payload: { kind, customerName: t.name, customerNumber: t.number, messageContent: t.text },
  });
  for (const [kind, orderKey] of [
    ['dead', 'a'],
    ['slow', 'b'],
    ['later', 'b'],
  ] as const)
    expect(await store.queue.enqueueOnce(`${kind}-${t.team}`, event(kind, orderKey), 60_000)).toBe('queued');
}

async function stored(backend: Backend, store: Store): Promise<StoredText> {
  if (backend.name === 'memory') return memoryText(store, [GONE.team, KEPT.team]);
  return redisText(backend.name === 'redis' ? redis.redis : cluster.client, store.keys.prefix);
}

describe.each(backends)('forgetting a workspace ($name)', (backend) => {
  it('leaves nothing of it — no key, no value, no customer — and another workspace keeps all of its own', async () => {
    const store = backend.create();
    await fill(store, GONE);
    await fill(store, KEPT);
    await enqueue(store, GONE);
    await enqueue(store, KEPT);

    // A worker: dead-letters one entry of each workspace, is busy with one of the forgotten one's when it
    // goes, and keeps the other workspace's waiting.
    let release = () => {};
    const running = new Promise<void>((resolve) => (release = resolve));
    let slowStarted = false;
    const consumer = store.queue.consume(
      async (entry) => {
        const { kind } = entry.payload as { kind: string };
        if (kind === 'dead') {
          // What the worker does with an event no channel takes: its dead letter, and the queue is done with it.
          const { id, teamId, orderKey, payload, enqueuedAt } = entry;
          const causes = [{ channel: 'C1', error: 'not_in_channel' }];
          await store.queue.bury({
            id,
            teamId,
            orderKey,
            payload,
            enqueuedAt,
            error: 'not_in_channel',
            causes,
            attempts: 1,
            failedAt: Date.now(),
          });
          return;
        }
        // The other workspace's entries stay unfinished: tried again in an hour.
        if (entry.teamId === KEPT.team) throw new Error('not now');
        if (kind === 'slow' || kind === 'later') {
          slowStarted ||= kind === 'slow';
          await running;
        }
      },
      { consumer: 'worker-1', blockMs: 50, claimIdleMs: 60_000, retryDelayMs: () => 3_600_000 },
    );
    await waitFor(
      async () =>
        slowStarted &&
        (await store.queue.deadLetters(GONE.team)).entries.length +
          (await store.queue.deadLetters(KEPT.team)).entries.length ===
          2,
      'the running entry and both dead letters',
    );

    const before = await stored(backend, store);
    for (const text of [...CUSTOMER_DATA(GONE), ...CUSTOMER_DATA(KEPT)]) expect(holding(before, text)).not.toEqual([]);
    const keptBefore = holding(before, KEPT.team);

    const report = await store.forgetWorkspace(GONE.team);
    release(); // the running handler ends after its workspace is forgotten, and is recorded
    await consumer.stop();

    const after = await stored(backend, store);
    for (const text of CUSTOMER_DATA(GONE)) expect([text, holding(after, text)]).toEqual([text, []]);
    expect(report.keys).toBeGreaterThanOrEqual(backend.name === 'memory' ? 20 : 22);
    expect(report.queued).toBeGreaterThanOrEqual(3); // two entries (running meanwhile) and a dead letter
    expect(report.timers).toBe(1);

    // The other workspace: every key still there, its customer data and settings intact.
    expect(holding(after, KEPT.team).sort()).toEqual(keptBefore.sort());
    for (const text of CUSTOMER_DATA(KEPT)) expect(holding(after, text)).not.toEqual([]);
    expect(await store.workspaces.getApiKey(KEPT.team)).toBe(`ck_live_${KEPT.team}_0000000000000000`);
    expect(await store.routes.listForTeam(KEPT.team)).toHaveLength(1);
    expect((await store.conversations.findThread(KEPT.team, 'C1', '100.1'))?.facts.customerName).toBe(KEPT.name);
    expect((await store.queue.deadLetters(KEPT.team)).entries).toHaveLength(1);
    expect(await store.timers.dueAt('digest', workspaceTimerId(KEPT.team, 'C1'))).toBeDefined();
    expect((await store.outbox.channels()).map((c) => c.teamId)).toEqual([KEPT.team]);
    expect((await store.queue.depth()).total).toBe(2);

    // And it is forgotten for the bot too.
    expect(await store.workspaces.exists(GONE.team)).toBe(false);
    expect(await store.workspaces.exists(KEPT.team)).toBe(true);
    expect(await store.installations.botToken(GONE.team)).toBeNull();
    expect((await store.queue.deadLetters(GONE.team)).count).toBe(0);
  });
});
