/**
 * **Resolve** on a conversation card: the conversation is done in this channel. The card says who resolved it
 * and when; it leaves `/campaign handoffs` and App Home's list, the customer's wait ends and its SLA timer is
 * cancelled (no nudge). The chat session is still alive, so replies in the thread and Quick reply still
 * reach the customer. The customer's next message reopens it (`deliveries.ts`: the card is open again and the
 * thread gets one line); so does **Reopen** on the resolved card, for a conversation resolved too soon.
 *
 * Only people who may answer customers (`standing.ts`) may resolve or reopen. Both are compare-and-set in
 * the store: two presses at once resolve it once, and the second presser is told by whom.
 */
import type { App } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { slackErrorCode } from '../slack/post.js';
import { REOPEN_ACTION, RESOLVE_ACTION } from './card.js';
import { readClick } from './link-session.js';
import { refusalReason, replyRefusal } from './standing.js';
import { updateCard } from './threads.js';
import { SLA_TIMER, slaTimerId } from './waiting.js';

export function registerResolve(app: App, deps: Deps): void {
  const log = deps.logger.child({ component: 'handoff' });
  for (const actionId of [RESOLVE_ACTION, REOPEN_ACTION] as const) {
    app.action(actionId, async ({ ack, body, client }) => {
      await ack();
      const click = readClick(deps, body, log);
      if (!click) return;
      const { b, teamId, channel, tell } = click;
      // The buttons are on the card, the thread's parent.
      const cardTs = b.message?.ts ?? b.container?.message_ts ?? undefined;
      const inThread = b.message?.thread_ts ?? b.container?.thread_ts ?? undefined;
      if (!channel || !cardTs || (inThread && inThread !== cardTs)) return;
      const store = deps.store;
      const thread = await store.conversations.findThread(teamId, channel, cardTs);
      if (!thread || thread.state === 'closed') {
        await tell('This conversation is closed (the chat session completed) or no longer on record.');
        return;
      }
      const user = b.user.id;
      const ws = { teamId, enterpriseId: b.enterprise?.id ?? b.team?.enterprise_id ?? undefined };
      const refusal = await replyRefusal(deps, client, ws, { id: user, team: b.user.team_id ?? undefined }, log);
      if (refusal) {
        log.info({ team: teamId, user, refusal, action: actionId }, 'resolve or reopen refused: not a full member');
        await tell(`Nothing changed: ${refusalReason(refusal)}`);
        return;
      }
      const where = { team: teamId, channel, thread: cardTs, user };
      try {
        if (actionId === RESOLVE_ACTION) {
          const result = await store.resolutions.resolve(teamId, channel, cardTs, user, store.now());
          if (!result.ok) {
            await tell(
              result.resolvedBy
                ? `<@${result.resolvedBy}> already resolved this conversation.`
                : 'This conversation is no longer on record, so it can’t be resolved.',
            );
            return;
          }
          await store.timers.cancel(SLA_TIMER, slaTimerId(teamId, channel, cardTs));
          log.info(where, 'handoff conversation resolved');
        } else {
          if (!(await store.resolutions.reopen(teamId, channel, cardTs))) {
            await tell('This conversation is open already.');
            return;
          }
          log.info(where, 'handoff conversation reopened from its card');
        }
      } catch (err) {
        log.error({ err, ...where, action: actionId }, 'resolving or reopening a conversation failed');
        await tell('Something went wrong on our side and nothing changed — try again in a moment.');
        return;
      }
      const fresh = await store.conversations.findThread(teamId, channel, cardTs);
      try {
        if (fresh) await updateCard(client, fresh, log);
      } catch (err) {
        log.warn(
          { err, slackError: slackErrorCode(err) },
          'could not show on the card that it was resolved or reopened',
        );
        await tell('Done — but Slack did not take the card’s update just now; it shows the change with the next one.');
      }
    });
  }
}
