/**
 * Who owns a conversation: **Claim** on the card makes the presser its owner, **Unclaim** lets the owner go,
 * **Take over** moves it to the presser. Only people who may answer customers (`standing.ts`) may claim or
 * take over; replies from anyone who may answer still go out, whoever owns the card.
 *
 * The buttons sit on the card (the thread's parent), which names the thread. Unclaim's and Take over's value
 * is the owner the card showed: a press from a screen showing an older owner is refused, never applied to
 * whoever holds it now. Claims are compare-and-set in the store, so two people pressing Claim at once get one
 * owner and one sentence saying who.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import { message, section } from '../slack/blocks.js';
import { postMessage, slackErrorCode } from '../slack/post.js';
import type { ClaimResult, ThreadInfo } from '../store/index.js';
import { CLAIM_ACTION, TAKE_OVER_ACTION, UNCLAIM_ACTION } from './card.js';
import { readClick } from './link-session.js';
import { refusalReason, replyRefusal } from './standing.js';
import { updateCard } from './threads.js';

type OwnershipAction = typeof CLAIM_ACTION | typeof UNCLAIM_ACTION | typeof TAKE_OVER_ACTION;

export function registerClaim(app: App, deps: Deps): void {
  const log = deps.logger.child({ component: 'handoff' });
  for (const actionId of [CLAIM_ACTION, UNCLAIM_ACTION, TAKE_OVER_ACTION] as const) {
    app.action(actionId, async ({ ack, body, client }) => {
      await ack();
      const click = readClick(deps, body, log);
      if (!click) return;
      const { b, teamId, channel, tell } = click;
      const cardTs = b.message?.ts ?? b.container?.message_ts ?? undefined;
      const inThread = b.message?.thread_ts ?? b.container?.thread_ts ?? undefined;
      const value = b.actions?.find((a) => a.action_id === actionId)?.value ?? undefined;
      if (!channel || !cardTs) return;
      const conversations = deps.store.conversations;
      // The buttons are only on the card: a press on a reply in a thread names no conversation of its own.
      const thread = inThread && inThread !== cardTs ? null : await conversations.findThread(teamId, channel, cardTs);
      if (!thread || thread.state === 'closed') {
        await tell('This conversation is closed or no longer on record, so it can’t be claimed.');
        return;
      }
      const user = b.user.id;
      const refusal = await replyRefusal(
        deps,
        client,
        { teamId, enterpriseId: b.enterprise?.id ?? b.team?.enterprise_id ?? undefined },
        { id: user, team: b.user.team_id ?? undefined },
        log,
      );
      if (refusal) {
        log.info(
          { team: teamId, user, refusal, action: actionId },
          'conversation ownership change refused: not a full member of the workspace',
        );
        await tell(`You can’t own this conversation: ${refusalReason(refusal)}`);
        return;
      }
      try {
        const sentence = await change(deps, client, thread, actionId, user, value, log);
        if (sentence) await tell(sentence);
      } catch (err) {
        log.error(
          { err, team: teamId, channel, thread: cardTs, action: actionId },
          'changing who owns a conversation failed',
        );
        await tell('Something went wrong on our side and the owner was not changed — try again in a moment.');
      }
    });
  }
}

/** Applies one press; returns the sentence for the presser when nothing changed. */
async function change(
  deps: Deps,
  client: WebClient,
  thread: ThreadInfo,
  actionId: OwnershipAction,
  user: string,
  shown: string | undefined,
  log: Logger,
): Promise<string | undefined> {
  const conversations = deps.store.conversations;
  const { teamId, channelId, threadTs } = thread;
  const owner = thread.owner;
  let result: ClaimResult;
  let line: string;
  switch (actionId) {
    case CLAIM_ACTION:
      if (owner === user) return 'This conversation is already yours.';
      result = await conversations.claim(teamId, channelId, threadTs, user);
      line = `🙋 <@${user}> claimed this conversation.`;
      break;
    case UNCLAIM_ACTION:
      if (owner !== user)
        return owner
          ? `Only <@${owner}>, who owns this conversation, can unclaim it — press *Take over* to make it yours.`
          : 'Nobody owns this conversation any more.';
      if (shown !== user) return staleCard(owner);
      result = (await conversations.unclaim(teamId, channelId, threadTs, user))
        ? { ok: true }
        : { ok: false, owner: (await conversations.findThread(teamId, channelId, threadTs))?.owner };
      line = `👋 <@${user}> unclaimed this conversation — anyone can claim it.`;
      break;
    case TAKE_OVER_ACTION:
      if (owner === user) return 'This conversation is already yours.';
      if (!owner || shown !== owner) return staleCard(owner);
      result = await conversations.takeOver(teamId, channelId, threadTs, owner, user);
      line = `🔁 <@${user}> took this conversation over from <@${owner}>.`;
      break;
  }
  if (!result.ok) return staleCard(result.owner);
  const fresh = (await conversations.findThread(teamId, channelId, threadTs)) ?? thread;
  log.info(
    { team: teamId, channel: channelId, thread: threadTs, user, from: owner, to: fresh.owner, action: actionId },
    'conversation owner changed',
  );
  try {
    await updateCard(client, fresh, log);
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not show the new owner on the conversation card');
  }
  try {
    await postMessage(client, { channel: channelId, threadTs }, message('Conversation owner changed', [section(line)]));
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not say in the thread who owns the conversation');
  }
  return undefined;
}

function staleCard(owner: string | undefined): string {
  return owner
    ? `Nothing changed: the card was out of date — <@${owner}> owns this conversation now. Press *Take over* on the card to make it yours.`
    : 'Nothing changed: the card was out of date — nobody owns this conversation now. Press *Claim* on the card to make it yours.';
}
