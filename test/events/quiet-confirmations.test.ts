/**
 * Setting up who gets paged pages nobody: the confirmations of `subscribe … notify:`, `alert … notify:` and
 * `handoff-sla <minutes> @group` — in the channel and privately — and the listings and help name the people and
 * groups as text, while the posts meant to page them (a hot lead's card) still mention them. Asserted on what
 * the Slack stand-in received and accepted.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, TEAM_ID, useHarness } from '../support/harness.js';
import { CALL_COMPLETED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, run, startEventsHarness } from './support.js';

const CHANNEL = 'C0SETUP001';
const SALES = '<!subteam^S0SALES01|@sales>';
const BEA = '<@U0MEMBER1|bea>';
const SUPPORT = '<!subteam^S0SUPPORT1|@support>';
/** What pages someone in Slack's markup: a user group, a person, or the channel's present members. */
const LIVE_MENTION = /<!subteam\^|<@|<!here|<!channel/;

const h = useHarness(() => startEventsHarness(), ['platform', 'slack', 'routes']);

describe('setup confirmations', () => {
  it('name the people and groups they set up without mentioning them; the hot lead card still mentions them', async () => {
    const answers: string[] = [];
    const ask = async (text: string) => {
      const answer = (await run(h, text, { channelId: CHANNEL })).text;
      answers.push(answer);
      return answer;
    };

    const subscribed = await ask(`subscribe camp-1 call_completed summary:interested notify:${SALES},${BEA}`);
    expect(subscribed).toContain('mentioning `@sales`, `@bea`');
    expect(await ask('subscriptions')).toContain('mentioning `@sales`, `@bea`');
    const alerted = await ask(`alert camp-1 status:failed above:50 notify:${SALES}`);
    expect(alerted).toContain('mentioning `@sales`');
    expect(await ask('alert')).toContain('mentioning `@sales`');
    expect(await ask(`handoff-sla 5 ${SUPPORT}`)).toContain('or `@support` while nobody claimed it');
    expect(await ask('handoff-sla')).toContain('or `@support` while nobody claimed it');
    await ask('help');

    // The channel's notices: who is mentioned and who set it up, as text.
    const notices = h.slack.messages(CHANNEL);
    expect(notices.map((m) => m.text)).toEqual([
      expect.stringMatching(/^📣 .*mentioning `@sales`, `@bea`.*\(set up by [^<]+\)\.$/),
      expect.stringMatching(/^🚨 .*mentioning `@sales`.*\(set up by [^<]+\)\.$/),
    ]);
    for (const said of [...answers, JSON.stringify(notices)]) expect(said).not.toMatch(LIVE_MENTION);

    // The post meant to page them still does.
    const url = `${h.url}/hooks/${await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)}`;
    const res = await deliver(url, { ...CALL_COMPLETED_FULL, callId: 'call-hot-1', callSummary: 'Very interested!' });
    expect(res.status).toBe(200);
    await queueDrained(h);
    const hot = posts(h, CHANNEL).filter((m) => m.text.includes('Hot lead'));
    expect(hot).toHaveLength(1);
    expect(hot[0]!.text).toMatch(/^<!subteam\^S0SALES01> <@U0MEMBER1> 🔥 Hot lead/);

    // Ending it is announced without a mention too.
    const before = h.slack.messages(CHANNEL).length;
    expect(await ask('unsubscribe camp-1')).toContain('no longer receives');
    await queueDrained(h); // the channel's notice goes out from its outbox
    const ended = h.slack.messages(CHANNEL).slice(before);
    expect(ended.map((m) => m.text)).toEqual([expect.stringMatching(/^🔕 .*\(changed by [^<]+\)\.$/)]);
    expect(JSON.stringify(ended)).not.toMatch(LIVE_MENTION);
  });

  it('a quota alert or digest set up here names who set it up without mentioning them', async () => {
    await run(h, 'quota-alert 80 100', { channelId: CHANNEL, userId: ADMIN_ID });
    await run(h, 'digest daily', { channelId: CHANNEL, userId: ADMIN_ID });
    const notices = h.slack.messages(CHANNEL).filter((m) => /set up by/.test(m.text));
    expect(notices.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(notices)).not.toMatch(LIVE_MENTION);
  });
});
