/**
 * Commands that set up or read what one channel gets, run in a direct message: the user reads that the command
 * works in a channel and where to run it — not advice that can't be followed in a DM (`/invite @Campaign`) —
 * and nothing is asked of the platform or posted. Commands that need no channel run in a DM as anywhere.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_ID, MEMBER_ID, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { PUBLIC_URL: 'https://bot.example.com' } });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.slack.reset();
  h.platform.reset();
});

let seq = 0;
async function runIn(channel: { channelId: string; channelName?: string }, text: string, userId = ADMIN_ID) {
  const id = `dm-${++seq}`;
  expect((await h.signer.command({ text, userId, responseUrlId: id, ...channel })).status).toBe(200);
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
  expect(answer.status).toBe(200);
  return JSON.stringify(answer.body);
}

const DM = { channelId: 'D0ADMIN0001' }; // the signer names it `directmessage`, as Slack does
const GROUP_DM = { channelId: 'G0GROUPDM01', channelName: 'mpdm-ada--max-1' };

describe('a channel command in a direct message', () => {
  it('subscribe says it needs the channel that should get the posts, and subscribes nothing', async () => {
    const text = await runIn(DM, 'subscribe camp-1 call_completed');
    expect(text).toContain(
      '`/campaign subscribe` works in a channel. Run it in the channel that should get the posts — in a direct message there is nothing to subscribe.',
    );
    expect(text).not.toContain('/invite');
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(h.platform.requests).toHaveLength(0);
    expect(await h.bot.deps.store.routes.listForChannel(h.slack.teamId, DM.channelId)).toEqual([]);
  });

  it('says so for every command about one channel, in a DM and a group DM, before anything else is checked', async () => {
    for (const where of [DM, GROUP_DM]) {
      for (const command of [
        'unsubscribe camp-1',
        'subscriptions',
        'digest daily',
        'digest',
        'quota-alert 80',
        'alert',
        'handoff-sla 10',
      ]) {
        const name = command.split(' ')[0]!;
        // A member, not an admin: the channel comes first, so nobody is told about rights they can't use here.
        expect(await runIn(where, command, MEMBER_ID)).toContain(`\`/campaign ${name}\` works in a channel. Run it in`);
      }
    }
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(h.platform.requests).toHaveLength(0);
  });

  it('runs commands that need no channel as anywhere', async () => {
    const text = await runIn(DM, 'quota', MEMBER_ID);
    expect(text).not.toContain('works in a channel');
    expect(h.platform.requests.map((r) => r.path)).toContain('/customer-quota');
  });
});
