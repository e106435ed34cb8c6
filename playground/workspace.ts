/**
 * The playground's workspace as it starts: its people (so permissions can be tried), its channels, the routes
 * made with the real `/campaign subscribe`, and what the bot has already seen of the platform's campaigns.
 */
import type { CatalogRepo } from '../src/store/catalog.js';
import type { PlatformState } from '../fakes/platform/seed.js';
import type { SlackChannel, SlackUser, SlackUserGroup } from '../fakes/slack/index.js';

export type Role = 'admin' | 'member' | 'guest';

export interface PlaygroundPerson extends SlackUser {
  id: string;
  name: string;
  role: Role;
  /** What the switcher says about them: why they may do what they may. */
  about: string;
}

/**
 * Who the person at the page can be. The first is who they are at start. Both admins are listed in the bot's
 * ADMIN_USER_IDS; `you` is a Slack workspace admin too, Dana is an admin only through that list. Sam and Priya
 * are support agents (members) who go on and off shift. Gwen is a multi-channel guest (`is_restricted`), which
 * users.info tells the bot.
 */
export const PLAYGROUND_PEOPLE: readonly PlaygroundPerson[] = [
  {
    id: 'U0PLAYYOU01',
    name: 'you',
    real_name: 'You (playground admin)',
    is_admin: true,
    tz: 'UTC',
    role: 'admin',
    about: 'workspace admin: every command',
  },
  {
    id: 'U0PLAYDANA1',
    name: 'dana',
    real_name: 'Dana Whitfield',
    tz: 'UTC',
    role: 'admin',
    about: 'admin through the app’s ADMIN_USER_IDS',
  },
  {
    id: 'U0PLAYSAM01',
    name: 'sam',
    real_name: 'Sam Okafor',
    tz: 'UTC',
    role: 'member',
    about: 'member: reads figures, answers customers; no admin commands',
  },
  {
    id: 'U0PLAYPRIYA',
    name: 'priya',
    real_name: 'Priya Nair',
    tz: 'UTC',
    role: 'member',
    about: 'member: a support agent; goes on shift to be handed chats',
  },
  {
    id: 'U0PLAYGWEN1',
    name: 'gwen',
    real_name: 'Gwen Park',
    is_restricted: true,
    tz: 'UTC',
    role: 'guest',
    about: 'guest: no customer data, can’t reach customers',
  },
];

export const PLAYGROUND_ADMIN_IDS = PLAYGROUND_PEOPLE.filter((p) => p.role === 'admin').map((p) => p.id);

/**
 * The workspace's user group: the support agents, so what the bot suggests in #support
 * (`/campaign handoff-sla 5 @support`) works as written — `@support` is a group Slack completes and escapes.
 */
export const PLAYGROUND_USER_GROUPS: readonly SlackUserGroup[] = [
  { id: 'S0PLAYSUPRT', handle: 'support', name: 'Support agents', users: ['U0PLAYSAM01', 'U0PLAYPRIYA'] },
];

/** The other organisation of the Slack Connect channel: an outsourcing vendor's agents. */
export const CONNECTED_ORG = { id: 'T0NORTHWND1', name: 'Northwind BPO' };

/**
 * People of the connected organisation: in #vendor-support only, never someone the page can be (Slack shows
 * them in the channel; users.info gives their own team's id, so the bot counts them as another organisation).
 */
export const OUTSIDE_PEOPLE: readonly SlackUser[] = [
  { id: 'U0NWOLU0001', name: 'olu', real_name: 'Olu Adeyemi', tz: 'UTC', team_id: CONNECTED_ORG.id },
  { id: 'U0NWMIRA001', name: 'mira', real_name: 'Mira Kovač', tz: 'UTC', team_id: CONNECTED_ORG.id },
];

const everyone = PLAYGROUND_PEOPLE.map((p) => p.id);
const fullMembers = PLAYGROUND_PEOPLE.filter((p) => p.role !== 'guest').map((p) => p.id);
const guests = PLAYGROUND_PEOPLE.filter((p) => p.role === 'guest').map((p) => p.id);

/**
 * The channels and who is in them. Full members are in every channel (so `/campaign handoffs` lists their
 * conversations, whoever asks); #calls and #support hold full members only, so they show customers in full.
 * #general and #partners have the guest in them, and #vendor-support is shared with another organisation:
 * routes there mask customers' numbers and e-mails, and customer chats need an admin's `customers:full`.
 */
export const PLAYGROUND_CHANNELS: ReadonlyArray<SlackChannel & { name: string; members: string[] }> = [
  { id: 'C0GENERAL01', name: 'general', purpose: 'Try /campaign here', members: everyone },
  { id: 'C0CALLS0001', name: 'calls', purpose: 'Call events (call_started, call_completed)', members: fullMembers },
  { id: 'C0SUPPORT01', name: 'support', purpose: 'Chat events and handoff threads', members: fullMembers },
  {
    id: 'C0PARTNERS1',
    name: 'partners',
    purpose: 'With a partner clinic’s coordinator (a guest)',
    members: [...fullMembers, ...guests],
  },
  {
    id: 'C0VENDORSP1',
    name: 'vendor-support',
    purpose: `Slack Connect: shared with ${CONNECTED_ORG.name}, the outsourced night team`,
    members: [...fullMembers, ...OUTSIDE_PEOPLE.map((p) => p.id)],
    is_ext_shared: true,
  },
];

/** Agents on shift at start (the real `/campaign shift on`, as them), so the Home tab has a roster to show. */
export const SEED_SHIFTS: readonly string[] = ['U0PLAYSAM01'];

/** Routes made at start with the real `/campaign subscribe`, so notifications work at once. */
export const SEED_SUBSCRIPTIONS: ReadonlyArray<{ channel: string; text: string }> = [
  { channel: 'C0CALLS0001', text: 'subscribe * call_started call_completed' },
  { channel: 'C0SUPPORT01', text: 'subscribe * message_received message_sent' },
];

/** The message shortcuts of manifest.yml (Slack lists them under a message's "More actions"). */
export const MESSAGE_SHORTCUTS: ReadonlyArray<{ callbackId: string; name: string }> = [
  { callbackId: 'clone_voice_from_message', name: 'Clone voice from files' },
];

/**
 * The workspace starts as one that has been running a while: the bot has seen the simulator's campaigns and
 * agents in events, and its linked numbers, so names work where ids are expected (`/campaign bookings spring`)
 * and the forms' menus list them from the first minute.
 */
export async function seedCatalog(catalog: CatalogRepo, teamId: string, state: PlatformState): Promise<void> {
  for (const campaign of Object.values(state.campaigns)) {
    await catalog.note(teamId, 'campaigns', { id: campaign.id, name: campaign.name, type: campaign.type });
    for (const agent of state.agents[campaign.id] ?? [])
      await catalog.note(teamId, 'agents', { id: agent.id, name: agent.name, campaignId: campaign.id });
  }
  for (const number of state.phoneNumbers)
    await catalog.note(teamId, 'numbers', {
      id: number.id,
      ...(number.campaignId ? { campaignId: number.campaignId } : {}),
    });
}
