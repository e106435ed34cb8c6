/**
 * The App Home tab, as a pure function of what we know about the workspace.
 */
import type { HomeView } from '@slack/types';
import type { QuotaRow } from '../api/index.js';
import { customerDataRefusal, type Refusal } from '../app/membership.js';
import { hoursMinutes, usageBar } from '../format/numbers.js';
import { allowanceMs } from '../views/usage.js';
import type { Connection, DigestSchedule, OnShift, QuotaAlertSetting, Route } from '../store/index.js';
import { routeLabel } from '../events/subscription-text.js';
import { pauseAdvice } from '../delivery/channel-pause.js';
import { describeSchedule } from '../digests/index.js';
import { onShiftLine, renderConversationLine, type OpenConversation } from '../handoff/open-list.js';
import {
  actions,
  button,
  context,
  divider,
  escapeMrkdwn,
  header,
  section,
  slackDate,
  type KnownBlock,
} from '../slack/blocks.js';

export const HOME_ACTIONS = { stats: 'home_stats', connect: 'home_connect', refresh: 'home_refresh' } as const;

export interface HomeState {
  connection: Connection | null;
  /** The app-wide default key's last 4, when CAMPAIGN_API_KEY is set and the workspace has none of its own. */
  defaultKeyLast4?: string;
  routes: readonly Route[];
  deadLetters: number;
  /** Channels the bot cannot post in until someone acts (see src/delivery/channel-pause.ts). */
  pausedChannels?: ReadonlyArray<{ channelId: string; reason: string; since: number }>;
  /** Channel digests and quota alerts (`/campaign digest`, `/campaign quota-alert`). */
  digests?: ReadonlyArray<{ channelId: string; schedule: DigestSchedule }>;
  quotaAlerts?: ReadonlyArray<{ channelId: string; setting: QuotaAlertSetting }>;
  /** This month's quota row, or the sentence saying why it could not be read. */
  quota: { row: QuotaRow } | { problem: string } | undefined;
  isAdmin: boolean;
  /**
   * Open handoff conversations the viewer claimed: the first few, and how many in all — or, for someone who is
   * not a full member of the workspace, why they are not shown (they name customers).
   */
  myConversations: { shown: readonly OpenConversation[]; total: number } | { hidden: Refusal };
  /** The time the waits are measured to (epoch ms). */
  now: number;
  /** Who is on shift (`/campaign shift`), and who is looking. */
  onShift?: { roster: readonly OnShift[]; viewer: string };
}

const MAX_ROUTE_LINES = 30;

export function renderHome(s: HomeState): HomeView {
  const blocks: KnownBlock[] = [header('Campaign'), section(connectionLine(s))];

  blocks.push(divider(), section('*Usage this month*'));
  if (!s.quota) blocks.push(context('Connect the workspace to see usage.'));
  else if ('problem' in s.quota) blocks.push(context(`Usage is unavailable right now: ${s.quota.problem}`));
  else {
    const { total } = allowanceMs(s.quota.row);
    const used = s.quota.row.TotalUsageMs ?? 0n;
    blocks.push(section(`\`${usageBar(used, total)}\`\n${hoursMinutes(used)} used of ${hoursMinutes(total)}`));
  }

  blocks.push(divider(), section('*My open conversations*'));
  if (s.onShift) blocks.push(context(onShiftLine(s.onShift.roster, s.onShift.viewer)));
  const mine = s.myConversations;
  if ('hidden' in mine) {
    blocks.push(context(customerDataRefusal('The list of open conversations', mine.hidden)));
  } else if (mine.total === 0) {
    blocks.push(
      context(
        'You have not claimed any open handoff conversation. Press *Claim* on a conversation card; `/campaign handoffs` lists the open ones.',
      ),
    );
  } else {
    blocks.push(section(mine.shown.map((c) => `• ${renderConversationLine(c, s.now)}`).join('\n')));
    if (mine.total > mine.shown.length)
      blocks.push(context(`…and ${mine.total - mine.shown.length} more — \`/campaign handoffs\` lists them all.`));
  }

  blocks.push(divider(), section('*Event routes*'));
  if (s.routes.length === 0) {
    blocks.push(
      context(
        'No channel receives platform events yet. An admin runs `/campaign subscribe &lt;campaignId|*&gt;` in a channel.',
      ),
    );
  } else {
    const lines = s.routes
      .slice(0, MAX_ROUTE_LINES)
      .map(
        (r) =>
          `• <#${r.channelId}> ← ${r.campaignId === '*' ? 'every campaign' : `campaign \`${escapeMrkdwn(r.campaignId)}\``}: ${routeLabel(r.triggerName, r.filters)}`,
      );
    if (s.routes.length > MAX_ROUTE_LINES) lines.push(`…and ${s.routes.length - MAX_ROUTE_LINES} more`);
    blocks.push(section(lines.join('\n')));
  }
  blocks.push(
    context(
      s.deadLetters > 0
        ? `⚠️ ${s.deadLetters >= 100 ? '100+' : s.deadLetters} event${s.deadLetters === 1 ? '' : 's'} could not be posted — an admin sees why, and posts them again, with \`/campaign failed\`.`
        : 'Every event received so far was delivered (or is on its way).',
    ),
  );
  const paused = s.pausedChannels ?? [];
  if (paused.length > 5)
    blocks.push(context(`⏸️ Posting is paused in ${paused.length} channels — see \`/campaign failed\`.`));
  else
    for (const p of paused) {
      const since = `<!date^${Math.floor(p.since / 1000)}^{date_short_pretty} at {time}|${new Date(p.since).toISOString()}>`;
      blocks.push(
        context(
          `⏸️ Posting in <#${p.channelId}> is paused since ${since}: ${pauseAdvice(p.channelId, p.reason)}, then Retry in \`/campaign failed\`.`,
        ),
      );
    }

  blocks.push(divider(), section('*Digests and quota alerts*'), ...reportLines(s));

  const buttons = [
    button('Show stats', HOME_ACTIONS.stats, { style: 'primary' }),
    button('Refresh', HOME_ACTIONS.refresh),
  ];
  if (s.isAdmin) buttons.push(button(s.connection ? 'Change API key' : 'Connect platform', HOME_ACTIONS.connect));
  blocks.push(divider(), actions(buttons));
  return { type: 'home', blocks };
}

function reportLines(s: HomeState): KnownBlock[] {
  const lines = [
    ...(s.digests ?? []).map((d) => `• <#${d.channelId}> 🗞️ digest ${describeSchedule(d.schedule)}`),
    ...(s.quotaAlerts ?? []).map(
      (a) => `• <#${a.channelId}> 📈 quota alerts at ${a.setting.thresholds.map((t) => `${t}%`).join(', ')}`,
    ),
  ];
  if (lines.length === 0) {
    return [
      context(
        'No channel gets digests or quota alerts yet. An admin runs `/campaign digest daily` or `/campaign quota-alert 80 90 100` in a channel.',
      ),
    ];
  }
  const shown = lines.slice(0, MAX_ROUTE_LINES);
  if (lines.length > MAX_ROUTE_LINES) shown.push(`…and ${lines.length - MAX_ROUTE_LINES} more`);
  return [section(shown.join('\n'))];
}

function connectionLine(s: HomeState): string {
  if (s.connection) {
    return `🟢 Connected to the platform with key \`••••${escapeMrkdwn(s.connection.last4)}\`, verified ${slackDate(s.connection.verifiedAt.toISOString())} by <@${s.connection.verifiedBy}>.`;
  }
  if (s.defaultKeyLast4 !== undefined)
    return `🟢 Connected with the app's default key \`••••${escapeMrkdwn(s.defaultKeyLast4)}\`.`;
  return '⚪️ Not connected to the platform yet. An admin can connect it with the button below or `/campaign connect`.';
}
