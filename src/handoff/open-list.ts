/**
 * Open handoff conversations as a list (`/campaign handoffs`, App Home's "my open conversations"): one line
 * each — customer, campaign, owner, how long the customer has waited, a link to the thread — the
 * longest-waiting first, answered ones after, oldest first; and who is on shift to take them.
 */
import type { WebClient } from '@slack/web-api';
import { escapeMrkdwn } from '../slack/blocks.js';
import { campaignLabel, customerLabel } from '../slack/text.js';
import type { OnShift, ThreadInfo } from '../store/index.js';
import { waitedFor } from './waiting.js';
import { threadCustomer } from '../app/customer-view.js';

export interface OpenConversation {
  info: ThreadInfo;
  /** The thread's permalink, when Slack gave one. */
  permalink?: string;
}

/** Waiting customers first, longest wait first; then the answered ones, oldest thread first. */
export function byLongestWait(a: ThreadInfo, b: ThreadInfo): number {
  if (a.waitingSince !== undefined && b.waitingSince !== undefined) return a.waitingSince - b.waitingSince;
  if (a.waitingSince !== undefined) return -1;
  if (b.waitingSince !== undefined) return 1;
  return Number(a.threadTs) - Number(b.threadTs);
}

/** Each thread with its permalink (`chat.getPermalink`); a thread Slack can't link to is listed by channel. */
export async function withPermalinks(client: WebClient, threads: readonly ThreadInfo[]): Promise<OpenConversation[]> {
  return Promise.all(
    threads.map(async (info) => {
      try {
        const res = await client.chat.getPermalink({ channel: info.channelId, message_ts: info.threadTs });
        return res.permalink ? { info, permalink: res.permalink } : { info };
      } catch {
        return { info };
      }
    }),
  );
}

export function renderConversationLine(c: OpenConversation, now: number): string {
  const { info } = c;
  // As its channel shows it: the list never tells more than the thread it links to.
  const customer = customerLabel(threadCustomer(info));
  const campaign = campaignLabel({ campaignName: info.facts.campaignName, campaignId: info.campaignId }) ?? '—';
  const owner = info.owner ? `<@${info.owner}>` : '_unclaimed_';
  const wait =
    info.waitingSince === undefined
      ? '✅ answered'
      : `${info.overdue ? '🔴 overdue, ' : '⏳ '}waiting ${waitedFor(now - info.waitingSince)}`;
  const link = threadLink(c.permalink);
  return `${customer} · ${campaign} · ${owner} · ${wait} · ${link ? `${link} in <#${info.channelId}>` : `in <#${info.channelId}>`}`;
}

function threadLink(permalink: string | undefined): string | undefined {
  if (!permalink) return undefined;
  try {
    const url = new URL(permalink);
    if (url.protocol !== 'https:') return undefined;
    return `<${escapeMrkdwn(url.href.replace(/\|/g, '%7C'))}|open thread>`;
  } catch {
    return undefined;
  }
}

/**
 * Who is on shift (`/campaign shift`), as mentions: only for answers and views that notify nobody (a private
 * answer, App Home).
 */
export function onShiftLine(roster: readonly OnShift[], viewer?: string): string {
  if (roster.length === 0) return '🧑‍💻 Nobody is on shift right now — `/campaign shift on` to take chats.';
  const names = roster.map((a) => `<@${a.user}>`).join(', ');
  const you = viewer && roster.some((a) => a.user === viewer) ? ' (you too: `/campaign shift off` when you stop)' : '';
  return `🧑‍💻 On shift now (${roster.length}): ${names}${you}.`;
}
