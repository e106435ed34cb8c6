/**
 * The "Try these" panel's examples are true to the command grammar: each one, run as the page would send it (its
 * `@name`s as the mentions Slack sends), gets the bot's real answer — a reply, a form or a post — and never a
 * usage line, a "did you mean", an "I didn't understand" or a failure. Its own playground: the admin examples
 * change the workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageState } from '../../playground/page-api.js';
import { eventually, GENERAL, startTestPlayground, type PlaygroundHarness } from './support.js';

let h: PlaygroundHarness;
let state: PageState;

beforeAll(async () => {
  h = await startTestPlayground();
  state = await h.state();
});

afterAll(async () => {
  await h?.pg.stop();
});

/** What a person must not read after running an example. */
const NOT_UNDERSTOOD =
  /Usage:|did you mean|didn’t understand|is not something|not a command|Only Slack workspace admins|went wrong|could not|refused|was not found|no campaign|typed out is only text|Mention the Slack user/i;

/** Everything Slack received from the bot since `mark`: responses, posts and opened views, as text. */
/**
 * What the bot answered since `mark`, in `channel` (a form has none): the public post an earlier example made may
 * land after that example's first answer, in its own channel, and is not this example's answer.
 */
function answersSince(mark: { responses: number; calls: number }, channel: string): string[] {
  const responses = h.pg.slack.responses.slice(mark.responses).map((r) => JSON.stringify(r.body));
  const calls = h.pg.slack.calls
    .slice(mark.calls)
    .filter((c) => /^(chat\.post|views\.open|chat\.update)/.test(c.method))
    .filter((c) => c.args.channel === undefined || c.args.channel === channel)
    .map((c) => JSON.stringify(c.args));
  return [...responses, ...calls];
}

describe('Try these', () => {
  it('shows the seeded campaigns with their agents, the phone numbers and the templates', () => {
    const platform = h.pg.platform.state;
    expect(state.tryThese.campaigns.map((c) => c.id)).toEqual(Object.keys(platform.campaigns));
    expect(state.tryThese.campaigns[0]).toEqual({
      id: 'camp-1',
      name: 'Spring Recall Reminders',
      type: 'outbound',
      agents: [
        { id: 'agent-11', name: 'Riley (recall)' },
        { id: 'agent-12', name: 'Sam (overflow)' },
      ],
    });
    expect(state.tryThese.numbers.map((n) => n.id)).toEqual(platform.phoneNumbers.map((n) => n.id));
    expect(state.tryThese.templates.map((t) => t.id)).toEqual(Object.keys(platform.templates));
  });

  it('labels each example as the bot gates it: a guest runs what is for anyone, a member what is for members', async () => {
    const who = (command: string) => state.tryThese.examples.find((e) => e.command === command)?.who;
    expect(who('/campaign stats')).toBe('anyone');
    expect(who('/campaign handoffs')).toBe('members');
    expect(who('/campaign sample call_completed camp-1')).toBe('members');
    expect(who('/campaign quota-alert 80 90 100')).toBe('admins');
    expect(who('/campaign replies add greeting Hi! Thanks for reaching out — how can I help?')).toBe('admins');
    // Each example run by the person one step below its label is refused, and by the label's own person it is not.
    const refused = /guests can’t|Only full members|Only Slack workspace admins/;
    const guest = state.workspace.people.find((p) => p.role === 'guest')!.id;
    const member = state.workspace.people.find((p) => p.role === 'member')!.id;
    const runAs = async (userId: string, example: (typeof state.tryThese.examples)[number]) => {
      await h.post('/playground/you', { userId });
      const mark = { responses: h.pg.slack.responses.length, calls: h.pg.slack.calls.length };
      const channel = example.channel ?? GENERAL;
      await h.post('/playground/command', { channel, text: example.command.slice(10) });
      const answers = await eventually(() => {
        const got = answersSince(mark, channel);
        return Promise.resolve(got.length > 0 ? got.join('\n') : undefined);
      }, 10_000);
      const modal = (await h.state()).modal;
      if (modal) await h.post('/playground/view-closed', { viewId: modal.id });
      return answers;
    };
    try {
      for (const example of state.tryThese.examples.filter((e) => !e.mentions)) {
        if (example.who === 'anyone') expect(await runAs(guest, example), example.command).not.toMatch(refused);
        if (example.who === 'members') {
          expect(await runAs(guest, example), example.command).toMatch(refused);
          expect(await runAs(member, example), example.command).not.toMatch(refused);
        }
        if (example.who === 'admins') expect(await runAs(member, example), example.command).toMatch(refused);
      }
    } finally {
      await h.post('/playground/you', { userId: state.workspace.people[0]!.id });
    }
  }, 120_000);

  it('every example gets the bot’s real answer as an admin', async () => {
    const examples = state.tryThese.examples;
    expect(examples.length).toBeGreaterThan(15);
    for (const example of examples) {
      expect(example.command.startsWith('/campaign ')).toBe(true);
      // As the page sends it: each @name of the example as the mention Slack puts in a command's text.
      let text = example.command.slice('/campaign '.length);
      for (const id of example.mentions ?? []) {
        const person = state.workspace.people.find((p) => p.id === id)!;
        text = text.replace(`@${person.name}`, `<@${id}|${person.name}>`);
      }
      const mark = { responses: h.pg.slack.responses.length, calls: h.pg.slack.calls.length };
      // In the example's own channel when it names one (a guest or another organisation reads it).
      const channel = example.channel ?? GENERAL;
      expect(await h.post('/playground/command', { channel, text }), example.command).toEqual({ ok: true });
      const answers = await eventually(() => {
        const got = answersSince(mark, channel);
        return Promise.resolve(got.length > 0 ? got : undefined);
      }, 10_000);
      // Help lists every command, failures' summaries too ("events that could not be posted"): its groups are the answer.
      if (example.command === '/campaign help') expect(answers.join('\n')).toContain('*For everyone*');
      // Customer chats where a guest reads them: refused, with what to do instead.
      else if (example.note.startsWith('refused:')) expect(answers.join('\n')).toContain('Nothing was subscribed');
      else for (const answer of answers) expect(answer, example.command).not.toMatch(NOT_UNDERSTOOD);
      // A form the example opened is closed again, as a person would.
      const modal = (await h.state()).modal;
      if (modal) await h.post('/playground/view-closed', { viewId: modal.id });
    }
  }, 120_000);
});
