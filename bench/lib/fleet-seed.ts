/**
 * A fleet of installed workspaces, written the way the bot keeps them: through the store (`createStore`) the
 * bot processes share — the Slack installation (OAuth mode's `InstallationRepo`, sealed), the platform API key,
 * the hook token, a calls channel and a chats channel routed, and the chats channel's handoff SLA. What an
 * install through /slack/oauth_redirect, `/campaign connect`, two `/campaign subscribe` and one
 * `/campaign handoff-sla` would store (each has its own tests); written directly so thousands take seconds.
 *
 * Only workspaces that will post (`activate`) get a bot token Slack's stand-in accepts (a grant exchanged at
 * its oauth.v2.access) and a platform key the simulator accepts: an idle one never calls either.
 */
import type { Installation } from '@slack/oauth';
import type { FakePlatform } from '../../test/fakes/platform.js';
import type { FakeSlack } from '../../test/fakes/slack.js';
import type { Store } from '../../src/store/index.js';
import { ALL_CAMPAIGNS } from '../../src/store/routes.js';

export interface FleetWorkspace {
  teamId: string;
  /** Routed `call_completed` of every campaign. */
  callsChannel: string;
  /** Routed `message_received` of every campaign; has a handoff SLA. */
  chatsChannel: string;
  apiKey: string;
  botToken: string;
  /** The local hook path `/hooks/<token>`. */
  hook: string;
}

/** The handoff SLA every chats channel gets (seconds): longer than a bench run, so none fires. */
const SLA_S = 900;
/** Workspaces written at once (ioredis pipelines their commands). */
const SEED_CONCURRENCY = 64;

const pad = (i: number) => String(i).padStart(6, '0');

/** The i-th workspace's ids (Slack's shapes: T…, C…; upper-case letters and digits). */
function fleetIds(i: number): Omit<FleetWorkspace, 'hook'> {
  return {
    teamId: `TF${pad(i)}`,
    callsChannel: `CFCALL${pad(i)}`,
    chatsChannel: `CFCHAT${pad(i)}`,
    apiKey: `ck_live_fleet_workspace_${pad(i)}_key`,
    botToken: `xoxb-fleet-${pad(i)}-bench`,
  };
}

function installationOf(ids: Omit<FleetWorkspace, 'hook'>, scopes: readonly string[]): Installation<'v2', false> {
  return {
    team: { id: ids.teamId, name: `Fleet ${ids.teamId}` },
    enterprise: undefined,
    user: { token: undefined, scopes: undefined, id: `UI${ids.teamId.slice(2)}` },
    bot: {
      token: ids.botToken,
      scopes: [...scopes],
      id: `BB${ids.teamId.slice(2)}`,
      userId: `UB${ids.teamId.slice(2)}`,
    },
    tokenType: 'bot',
    isEnterpriseInstall: false,
    appId: 'A0FLEET',
    authVersion: 'v2',
  };
}

async function seedOne(store: Store, i: number, scopes: readonly string[]): Promise<FleetWorkspace> {
  const ids = fleetIds(i);
  const { teamId } = ids;
  await store.installations.storeInstallation(installationOf(ids, scopes));
  await store.workspaces.setApiKey(teamId, ids.apiKey, { verifiedBy: `UI${teamId.slice(2)}` });
  await store.routes.add({
    teamId,
    campaignId: ALL_CAMPAIGNS,
    triggerName: 'call_completed',
    channelId: ids.callsChannel,
  });
  await store.routes.add({
    teamId,
    campaignId: ALL_CAMPAIGNS,
    triggerName: 'message_received',
    channelId: ids.chatsChannel,
  });
  await store.handoffSla.set(teamId, ids.chatsChannel, { slaS: SLA_S });
  const token = (await store.workspaces.getHookToken(teamId)) ?? (await store.workspaces.createHookToken(teamId));
  return { ...ids, hook: `/hooks/${token}` };
}

/** Installs workspaces `from` … `to - 1` (their ids by `fleetIds`) through the store; resolves with them. */
export async function seedFleet(
  store: Store,
  range: { from: number; to: number },
  scopes: readonly string[],
): Promise<FleetWorkspace[]> {
  const out: FleetWorkspace[] = [];
  for (let i = range.from; i < range.to; i += SEED_CONCURRENCY) {
    const batch = Array.from({ length: Math.min(SEED_CONCURRENCY, range.to - i) }, (_, j) => i + j);
    out.push(...(await Promise.all(batch.map((n) => seedOne(store, n, scopes)))));
  }
  return out;
}

/**
 * Makes the workspaces able to post: Slack's stand-in grants each one's bot token (oauth.v2.access, as at its
 * install) and the platform simulator takes its API key.
 */
export async function activate(
  slack: FakeSlack,
  platform: FakePlatform,
  workspaces: readonly FleetWorkspace[],
): Promise<void> {
  for (const w of workspaces) {
    const grant = slack.oauthCode({
      teamId: w.teamId,
      teamName: `Fleet ${w.teamId}`,
      botToken: w.botToken,
      botUserId: `UB${w.teamId.slice(2)}`,
      botId: `BB${w.teamId.slice(2)}`,
      installerUserId: `UI${w.teamId.slice(2)}`,
    });
    const res = await fetch(`${slack.apiUrl}oauth.v2.access`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: '1111.2222', client_secret: 'fleet', code: grant.code }),
    });
    const body = (await res.json()) as { ok?: boolean; error?: string };
    if (!body.ok) throw new Error(`oauth.v2.access for ${w.teamId}: ${body.error ?? res.status}`);
    platform.addApiKey(w.apiKey);
  }
}
