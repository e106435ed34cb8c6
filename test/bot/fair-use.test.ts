/**
 * Fair use of the platform, from Slack's side: two workspaces installed in OAuth mode (Redis), each on its own
 * platform key. The platform simulator holds one workspace's requests until the test releases them, so "while
 * A is stuck" is a state the test sets up, not a time it waits out.
 *
 * - A's calls all stuck: the platform sees at most A's share at once, A's next command gets one clear sentence
 *   once it has waited its (here shortened) longest wait, and B's `/campaign stats` is answered meanwhile.
 * - Voice clones: 2 at a time per workspace; the third is told it is queued behind 2, and starts (and says so)
 *   when one finishes; one past the waiting list is refused in a sentence; B's clone is not queued behind A's.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SlackSigner } from '../fakes/slack-signer.js';
import { ADMIN_ID, MEMBER_ID, SIGNING_SECRET, TEAM_ID, startHarness, type Harness } from '../support/harness.js';
import { installApp } from '../support/oauth.js';
import { requireRedis } from '../support/redis.js';
import { CALLBACK, details, upload } from '../commands/clone-voice-support.js';

const redis = await requireRedis();
const TEAM_B = 'T0FAIRUSEB1';
const ADMIN_B = 'U0FAIRADMB1';
const KEY_A = 'ck_live_fair_use_workspace_A_0000aaaa';
const KEY_B = 'ck_live_fair_use_workspace_B_0000bbbb';
/** Calls one workspace may have at the platform at once (the transport's default). */
const CALL_SHARE = 8;

let h: Harness;
let b: SlackSigner;
beforeAll(async () => {
  h = await startHarness({
    oauth: true,
    defaultApiKey: false,
    redisUrl: redis.url,
    keyPrefix: `${redis.prefix}fair:`,
    // A command's turn waits 20 s at most in production, here 1 s, so the test need not wait that out; one
    // clone may wait (10 in production), so the next one shows what a full waiting list says.
    bot: { platformTurns: { calls: { maxWaitMs: 1_000 }, uploads: { maxWaiting: 1 } } },
  });
  h.slack.addUser({ id: ADMIN_B, name: 'bea', is_admin: true });
  await installApp(h, TEAM_ID);
  await installApp(h, TEAM_B);
  b = new SlackSigner({ signingSecret: SIGNING_SECRET, url: `${h.url}/slack/events`, teamId: TEAM_B, fake: h.slack });
});
beforeEach(async () => {
  h.platform.reset();
  h.platform.resetState();
  for (const key of [KEY_A, KEY_B]) h.platform.addApiKey(key);
  await h.bot.deps.store.workspaces.setApiKey(TEAM_ID, KEY_A, { verifiedBy: ADMIN_ID });
  await h.bot.deps.store.workspaces.setApiKey(TEAM_B, KEY_B, { verifiedBy: ADMIN_B });
  h.slack.reset();
});
afterAll(async () => {
  h.platform.clearFaults();
  h.platform.release();
  await h.close();
});

const answers = (id: string) => h.slack.responses.filter((r) => r.id === id).map((r) => JSON.stringify(r.body));
const answer = (id: string, match: (text: string) => boolean, timeoutMs?: number) =>
  h.slack.waitFor(() => answers(id).find(match), timeoutMs);
const of = (key: string) => h.platform.requests.filter((r) => r.headers['api-key'] === key);

describe('one workspace’s stuck calls', () => {
  it('never hold up another workspace’s command; past its share, A is told in one sentence', async () => {
    h.platform.inject({ apiKey: KEY_A, hold: true });
    for (let i = 0; i <= CALL_SHARE; i++)
      await h.signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: `a-${i}` });
    await h.slack.waitFor(() => h.platform.held().length === CALL_SHARE);

    await b.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: 'b-stats' });
    expect(await answer('b-stats', (t) => t.includes('Campaign dashboard'))).toBeTruthy();

    // The one past A's share waited its turn, was never sent, and its user was told so.
    const busy = await answer(`a-${CALL_SHARE}`, (t) => t.includes('many requests waiting'), 10_000);
    expect(busy).toContain(
      'This workspace already has many requests waiting for the campaign platform, so this one was not sent — try again in a minute.',
    );
    expect(of(KEY_A)).toHaveLength(CALL_SHARE);
    expect(of(KEY_B).map((r) => r.path)).toEqual(['/dashboard/dashboard-stats']);

    h.platform.clearFaults();
    h.platform.release();
    for (let i = 0; i < CALL_SHARE; i++)
      expect(await answer(`a-${i}`, (t) => t.includes('Campaign dashboard'))).toBeTruthy();
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toContain('campaign_platform_turns_refused_total{lane="calls",reason="waited"} 1');
  });
});

describe('voice clones', () => {
  let seq = 0;
  /** `/campaign clone-voice` and its form submitted by an admin of `signer`'s workspace; the response_url id. */
  async function startClone(signer: SlackSigner, admin: string, name: string): Promise<string> {
    const id = `clone-${++seq}`;
    const before = h.slack.views(CALLBACK).length;
    await signer.command({ text: 'clone-voice', userId: admin, responseUrlId: id });
    const view = await h.slack.waitFor(() => h.slack.views(CALLBACK)[before]);
    const file = h.slack.addFile({
      name: `${name}.mp3`,
      mimetype: 'audio/mpeg',
      data: randomBytes(4_000),
      teamId: signer.teamId,
    });
    const res = await signer.viewSubmission({
      callbackId: CALLBACK,
      viewId: view.view.id,
      userId: admin,
      values: details({ name: { value: { type: 'plain_text_input', value: name } }, files: upload([file]) }),
    });
    expect(res.status).toBe(200);
    return id;
  }
  const clonesAt = (key: string) =>
    h.platform.held().filter((r) => r.path === '/voices' && r.headers['api-key'] === key);

  it('run 2 at a time per workspace: the third is told it is queued, then that it started, then the voice', async () => {
    h.platform.inject({ path: '/voices', hold: true });
    const first = await startClone(h.signer, ADMIN_ID, 'Ava');
    const second = await startClone(h.signer, ADMIN_ID, 'Ben');
    await h.slack.waitFor(() => clonesAt(KEY_A).length === 2);
    const third = await startClone(h.signer, ADMIN_ID, 'Cleo');

    expect(await answer(third, (t) => t.includes('queued'))).toContain(
      'Your voice clone *Cleo* is queued behind 2 others in this workspace — we’ll post here when it starts and when it’s done.',
    );
    const fourth = await startClone(h.signer, ADMIN_ID, 'Dax');
    expect(await answer(fourth, (t) => t.includes('❌'))).toContain(
      '❌ This workspace already has 2 voice clones running and 1 waiting, so this one was not started — try again when some of them have finished.',
    );
    expect(h.platform.requests.filter((r) => r.multipart?.fields.name === 'Dax')).toEqual([]);
    // Another workspace's clone is not queued behind A's: it reaches the platform beside them.
    const other = await startClone(b, ADMIN_B, 'Dora');
    await h.slack.waitFor(() => clonesAt(KEY_B).length === 1);
    expect(clonesAt(KEY_A)).toHaveLength(2);
    expect(answers(other).some((t) => t.includes('queued'))).toBe(false);

    h.platform.release((r) => r.multipart?.fields.name === 'Ava');
    await answer(first, (t) => t.includes('cloned the voice *Ava*'));
    expect(await answer(third, (t) => t.includes('has started'))).toContain(
      'Your voice clone *Cleo* has started — the result will appear here.',
    );
    await h.slack.waitFor(() => clonesAt(KEY_A).some((r) => r.multipart?.fields.name === 'Cleo'));

    h.platform.clearFaults();
    h.platform.release();
    for (const [id, name] of [
      [second, 'Ben'],
      [third, 'Cleo'],
      [other, 'Dora'],
    ] as const)
      await answer(id, (t) => t.includes(`cloned the voice *${name}*`));
    // Cloning, queued, started, the voice: in that order, within the five posts a response_url takes.
    expect(answers(third).map((t) => /Cloning the voice|queued|has started|cloned the voice/.exec(t)?.[0])).toEqual([
      'Cloning the voice',
      'queued',
      'has started',
      'cloned the voice',
    ]);
  });
});
