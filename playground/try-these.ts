/**
 * The page's "Try these" panel: what the simulator holds (campaigns with their agents, phone numbers, templates)
 * and example commands built from it, each filling the message box when clicked. The examples follow the
 * command grammar (PRODUCT.md › Command grammar); test/playground/try-these.test.ts runs every one of them.
 */
import type { PlatformState } from '../fakes/platform/seed.js';
import { whoMayRun } from '../src/commands/index.js';
import { CONNECTED_ORG, PLAYGROUND_CHANNELS, PLAYGROUND_PEOPLE, type Role } from './workspace.js';

export interface TryExample {
  /** What goes into the message box, `@name` for a mention. */
  command: string;
  /** One line on what it shows. */
  note: string;
  /** Who may run it, from the bot's own gates (guests are refused customer data; admin commands need an admin). */
  who: ReturnType<typeof whoMayRun>;
  /** The people `@name`s in `command` stand for (the page sends them as mentions, as Slack does). */
  mentions?: string[];
  /** The channel to run it in (the page opens it), when not the one the person is in. */
  channel?: string;
}

/** An example as written here: who may run it is the bot's to say. */
type Example = Omit<TryExample, 'who'>;

export interface TryThese {
  examples: TryExample[];
  campaigns: Array<{ id: string; name: string; type: string; agents: Array<{ id: string; name: string }> }>;
  numbers: Array<{ id: string; number: string; campaignId: string | null }>;
  templates: Array<{ id: string; title: string }>;
}

function channelId(name: string): string {
  const found = PLAYGROUND_CHANNELS.find((c) => c.name === name);
  if (!found) throw new Error(`no playground channel ${name}`);
  return found.id;
}

/**
 * Routes into channels others can read: a guest in #partners, another organisation in #vendor-support. Calls
 * there show customers masked; customer chats are refused without an admin's `customers:full`.
 */
function audienceExamples(): Example[] {
  const partners = channelId('partners');
  const vendor = channelId('vendor-support');
  return [
    {
      command: '/campaign subscribe * call_started call_completed',
      note: 'a guest reads #partners: calls post with numbers and e-mails masked (+1 ••• ••• 0123) — then fire a call',
      channel: partners,
    },
    {
      command: '/campaign subscribe * message_received message_sent',
      note: 'refused: customer chats are not routed where a guest reads them without customers:full',
      channel: partners,
    },
    {
      command: '/campaign subscribe * call_completed',
      note: `Slack Connect with ${CONNECTED_ORG.name}: its people see calls masked`,
      channel: vendor,
    },
    {
      command: '/campaign subscribe * message_received message_sent customers:full',
      note: `you accept that ${CONNECTED_ORG.name}’s agents read customer chats in full — then fire a chat`,
      channel: vendor,
    },
  ];
}

function personId(name: string): string {
  const found = PLAYGROUND_PEOPLE.find((p) => p.name === name);
  if (!found) throw new Error(`no playground person ${name}`);
  return found.id;
}

export function tryThese(state: PlatformState): TryThese {
  const campaigns = Object.values(state.campaigns).map((c) => ({
    id: c.id,
    name: c.name,
    type: c.type,
    agents: (state.agents[c.id] ?? []).map((a) => ({ id: a.id, name: a.name })),
  }));
  const outbound = campaigns.find((c) => c.type === 'outbound') ?? campaigns[0];
  const chat = campaigns.find((c) => c.type === 'messages') ?? campaigns[0];
  const template = Object.values(state.templates)[0];
  const freeNumber = state.phoneNumbers.find((n) => n.campaignId === null) ?? state.phoneNumbers[0];
  const secondAgent = outbound?.agents.at(-1);
  const chatAgent = chat?.agents[0];
  const firstWord = (name: string) => (name.split(/\s+/)[0] ?? name).toLowerCase();

  const examples: Example[] = [
    { command: '/campaign help', note: 'every subcommand' },
    { command: '/campaign stats', note: 'calls, connection rate and bookings per channel type' },
    ...(outbound
      ? [
          {
            command: `/campaign bookings ${outbound.name}`,
            note: 'a campaign by its name; a guest is refused (customer data)',
          },
          {
            command: `/campaign scheduled ${firstWord(outbound.name)}`,
            note: 'one word of the name is enough',
          },
          {
            command: `/campaign sample call_completed ${outbound.id}`,
            note: 'a sample call card; its recording plays on the page',
          },
        ]
      : []),
    ...(template ? [{ command: `/campaign template ${template.assistant_id}`, note: template.title }] : []),
    { command: '/campaign quota', note: 'this month’s usage, with a bar' },
    { command: '/campaign subscriptions', note: 'this channel’s routes and the platform’s hooks' },
    { command: '/campaign handoffs', note: 'open customer conversations; “open thread” opens it here' },
    { command: '/campaign replies', note: 'saved replies for handoff threads' },
    {
      command: '/campaign shift on',
      note: 'take chats now: channels that assign hand new ones to you',
    },
    { command: '/campaign shift', note: 'who is on shift now' },
    {
      command: '/campaign shift off',
      note: 'stop: your open conversations go back to the pool (or to agents on shift)',
    },
    ...(outbound
      ? [
          {
            command: `/campaign subscribe ${outbound.id} call_completed summary:interested,demo,pricing notify:@dana`,
            note: 'hot leads only, mentioning Dana — then fire calls from Simulate',
            mentions: [personId('dana')],
          },
          {
            command: `/campaign alert ${outbound.id} status:failed,no-answer,busy above:40 window:15m min:5`,
            note: 'an outcome alert — then Simulate › Burst',
          },
        ]
      : []),
    ...(chatAgent
      ? [
          {
            command: `/campaign agent-link @sam ${chatAgent.id}`,
            note: `Sam’s thread replies go out as ${chatAgent.name}`,
            mentions: [personId('sam')],
          },
        ]
      : []),
    {
      command: '/campaign link-number',
      note: `a form: link ${freeNumber?.id ?? 'a number'} to a campaign`,
    },
    ...(outbound && secondAgent
      ? [
          {
            command: `/campaign delete-agent ${outbound.id} ${secondAgent.id}`,
            note: 'asks you to confirm first',
          },
        ]
      : []),
    {
      command: '/campaign replies add greeting Hi! Thanks for reaching out — how can I help?',
      note: 'a saved reply for Quick reply',
    },
    { command: '/campaign digest daily * at 09:00', note: 'a daily summary card in this channel' },
    { command: '/campaign quota-alert 80 90 100', note: 'a post when usage crosses each' },
    { command: '/campaign handoff-sla 5', note: 'nudge a thread left waiting 5 minutes' },
    {
      command: '/campaign handoff-sla 5 assign:round-robin',
      note: 'each new chat goes to an agent on shift, in turn',
    },
    { command: '/campaign keys', note: 'API keys, masked' },
    { command: '/campaign verify', note: 'business verification statuses' },
    { command: '/campaign clone-voice', note: 'a form with audio uploads' },
    ...audienceExamples(),
  ];

  return {
    examples: examples.map((e) => ({ ...e, who: whoMayRun(e.command.slice('/campaign '.length)) })),
    campaigns,
    numbers: state.phoneNumbers.map((n) => ({ id: n.id, number: n.number, campaignId: n.campaignId })),
    templates: Object.values(state.templates).map((t) => ({ id: t.assistant_id, title: t.title })),
  };
}

/** The switcher's entries: each person and what their role lets them do. */
export function people(): Array<{ id: string; name: string; realName: string; role: Role; about: string }> {
  return PLAYGROUND_PEOPLE.map((p) => ({
    id: p.id,
    name: p.name,
    realName: p.real_name ?? p.name,
    role: p.role,
    about: p.about,
  }));
}
