/**
 * An agent going off shift hands their open, unresolved conversations back to the pool. Each goes to another
 * agent on shift when its channel assigns (`handoff-sla … assign:`) — the customer still needs someone, as
 * Intercom's balanced assignment reassigns an away teammate's conversations — else it is left unclaimed, for
 * the channel's paging and SLA nudge (Chatwoot's unassigned queue). Every card is updated, and a new owner told
 * in the thread: both wait in their channel's urgent lane (posted at Slack's pace, never twice).
 */
import type { Logger } from '../logger.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';
import { context, message } from '../slack/blocks.js';
import type { AssignMode, Assignment, Store, ThreadInfo } from '../store/index.js';
import { pickAgent } from './assignment.js';
import { cardUpdate, threadLine } from './thread-posts.js';

export interface HandBack {
  /** Conversations `user` owned that went back to the pool. */
  returned: number;
  /** Of those, handed to another agent on shift. */
  reassigned: number;
}

/**
 * `user` went off shift: every open, unresolved conversation they own goes back to the pool — to another agent
 * on shift where the channel assigns, else unclaimed — and its card says so. Call after taking them off the
 * roster (they must not be picked again). Only the conversations they still own move: a press of Take over at
 * the same moment wins or loses cleanly (compare-and-set on the owner).
 */
export async function handBack(
  store: Pick<Store, 'shifts' | 'conversations' | 'handoffSla'>,
  road: Pick<BulkPosts, 'add'>,
  teamId: string,
  user: string,
  log: Logger,
): Promise<HandBack> {
  const conversations = store.conversations;
  const result: HandBack = { returned: 0, reassigned: 0 };
  const modes = new Map<string, AssignMode | undefined>();
  for (const t of await conversations.openThreads(teamId)) {
    if (t.owner !== user) continue;
    if (!(await conversations.unclaim(teamId, t.channelId, t.threadTs, user))) continue;
    result.returned++;
    if (!modes.has(t.channelId)) modes.set(t.channelId, (await store.handoffSla.get(teamId, t.channelId))?.assign);
    const mode = modes.get(t.channelId);
    const next = mode ? await pickAgent(store, teamId, mode) : undefined;
    let assignment: Assignment | undefined = mode ? { nobodyOnShift: true } : undefined;
    if (next && (await conversations.claim(teamId, t.channelId, t.threadTs, next)).ok) {
      assignment = { to: next };
      result.reassigned++;
    }
    await conversations.setAssignment(teamId, t.channelId, t.threadTs, assignment);
    const fresh = (await conversations.findThread(teamId, t.channelId, t.threadTs)) ?? t;
    log.info(
      { team: teamId, channel: t.channelId, thread: t.threadTs, from: user, to: fresh.owner },
      'conversation handed back as its owner went off shift',
    );
    await showHandBack(road, fresh, user);
  }
  return result;
}

/** The card shows the new owner (or none); a new owner is mentioned in the thread, so they hear of it. */
async function showHandBack(road: Pick<BulkPosts, 'add'>, thread: ThreadInfo, from: string): Promise<void> {
  await cardUpdate(road, thread.teamId, thread);
  if (!thread.owner) return;
  const mention = `<@${thread.owner}>`;
  // The mention leads the fallback text too: that is what the notification shows.
  const payload = message(`${mention} this conversation is yours now`, [
    context(`👤 Assigned to ${mention} — the previous owner went off shift.`),
  ]);
  const to = { channel: thread.channelId, threadTs: thread.threadTs };
  await threadLine(road, thread.teamId, to, payload, `hand-back:${thread.threadTs}:${from}:${Date.now()}`);
}
