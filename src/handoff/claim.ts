/**
 * Who owns a conversation. **Claim** on the card makes the presser its owner; the claimed card's **Unclaim**
 * lets the owner go — pressed by anyone else, it answers them privately with a **Take over** button, which
 * moves the conversation to them. Only people who may answer customers (`standing.ts`) may claim or take
 * over; replies from anyone who may answer still go out, whoever owns the card.
 *
 * The card shows the owner, so claiming and unclaiming say nothing in the thread (it holds the conversation);
 * a take-over gets one short line there, which tells the previous owner. Unclaim's value is the owner the
 * card showed, Take over's the thread and the owner its presser was shown: a press from a screen showing an
 * older owner is refused, never applied to whoever holds it now. Claims are compare-and-set in the store, so
 * two people pressing at once get one owner and one sentence saying who.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import { actions, button, context, message, section, type MessagePayload } from '../slack/blocks.js';
import { parseJsonValue } from '../slack/json-value.js';
import { slackErrorCode } from '../slack/post.js';
import { postToResponseUrl } from '../slack/response-url.js';
import type { ThreadInfo } from '../store/index.js';
import { CLAIM_ACTION, TAKE_OVER_ACTION, UNCLAIM_ACTION } from './card.js';
import { readClick } from './link-session.js';
import { refusalReason, replyRefusal } from './standing.js';
import { updateCard } from './threads.js';
import type { ThreadPosts } from './thread-posts.js';

type OwnershipAction = typeof CLAIM_ACTION | typeof UNCLAIM_ACTION | typeof TAKE_OVER_ACTION;

/** The value of the Take over button offered privately: the thread, and the owner its presser was shown. */
const offerSchema = z.object({ c: z.string().min(1), t: z.string().min(1), o: z.string().min(1) });

export function registerClaim(app: App, deps: Deps, posts: ThreadPosts): void {
  const log = deps.logger.child({ component: 'handoff' });
  for (const actionId of [CLAIM_ACTION, UNCLAIM_ACTION, TAKE_OVER_ACTION] as const) {
    app.action(actionId, async ({ ack, body, client }) => {
      await ack();
      const click = readClick(deps, body, log);
      if (!click) return;
      const { b, teamId, channel, tell } = click;
      const clickedTs = b.message?.ts ?? b.container?.message_ts ?? undefined;
      const inThread = b.message?.thread_ts ?? b.container?.thread_ts ?? undefined;
      const value = b.actions?.find((a) => a.action_id === actionId)?.value ?? undefined;
      if (!channel || !clickedTs) return;
      // The offered Take over names its thread (it sits in a private answer, not on the card); every other
      // button is on the card, the thread's parent: a press on a reply in a thread names no conversation.
      const offer = actionId === TAKE_OVER_ACTION ? parseJsonValue(value, offerSchema) : undefined;
      if (actionId === TAKE_OVER_ACTION && !offer) {
        log.warn({ team: teamId, user: b.user.id, channel }, 'a Take over named no thread: refused');
        await tell('This Take over button is out of date — press Unclaim on the card to be offered it again.');
        return;
      }
      if (offer && offer.c !== channel) {
        log.warn(
          { team: teamId, user: b.user.id, channel, named: offer.c },
          'a Take over named another channel: refused',
        );
        return;
      }
      const threadTs = offer ? offer.t : inThread && inThread !== clickedTs ? undefined : clickedTs;
      const shown = offer ? offer.o : value;
      const conversations = deps.store.conversations;
      const thread = threadTs ? await conversations.findThread(teamId, channel, threadTs) : null;
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
      // The private offer is answered in its place: its button must not be pressed twice.
      const answer = (text: string) =>
        offer && b.response_url
          ? postToResponseUrl(b.response_url, { replace_original: true, text }, log, deps.config.slack)
          : tell(text);
      try {
        const outcome = await change(deps, posts, client, thread, actionId, user, shown, log);
        if (outcome.kind === 'say') await answer(outcome.text);
        else if (!b.response_url) return;
        else if (outcome.kind === 'offer')
          await postToResponseUrl(
            b.response_url,
            { response_type: 'ephemeral', replace_original: false, ...outcome.offer },
            log,
            deps.config.slack,
          );
        else if (offer) await postToResponseUrl(b.response_url, { delete_original: true }, log, deps.config.slack);
      } catch (err) {
        log.error(
          { err, team: teamId, channel, thread: threadTs, action: actionId },
          'changing who owns a conversation failed',
        );
        await answer('Something went wrong on our side and the owner was not changed — try again in a moment.');
      }
    });
  }
}

/** What a press did: changed the owner, nothing (a sentence for the presser), or the private Take over offer. */
type Outcome = { kind: 'done' } | { kind: 'say'; text: string } | { kind: 'offer'; offer: MessagePayload };

const say = (text: string): Outcome => ({ kind: 'say', text });

async function change(
  deps: Deps,
  posts: ThreadPosts,
  client: WebClient,
  thread: ThreadInfo,
  actionId: OwnershipAction,
  user: string,
  shown: string | undefined,
  log: Logger,
): Promise<Outcome> {
  const conversations = deps.store.conversations;
  const { teamId, channelId, threadTs } = thread;
  const owner = thread.owner;
  let line: string | undefined;
  switch (actionId) {
    case CLAIM_ACTION: {
      if (owner === user) return say('This conversation is already yours.');
      const result = await conversations.claim(teamId, channelId, threadTs, user);
      if (!result.ok) return say(staleCard(result.owner));
      break;
    }
    case UNCLAIM_ACTION:
      if (owner !== user) {
        if (!owner) return say('Nobody owns this conversation any more — press *Claim* on the card to make it yours.');
        if (shown !== owner) return say(staleCard(owner));
        return { kind: 'offer', offer: takeOverOffer(thread, owner) };
      }
      if (shown !== user) return say(staleCard(owner));
      if (!(await conversations.unclaim(teamId, channelId, threadTs, user)))
        return say(staleCard((await conversations.findThread(teamId, channelId, threadTs))?.owner));
      break;
    case TAKE_OVER_ACTION: {
      if (owner === user) return say('This conversation is already yours.');
      if (!owner || shown !== owner) return say(staleCard(owner));
      const result = await conversations.takeOver(teamId, channelId, threadTs, owner, user);
      if (!result.ok) return say(staleCard(result.owner));
      line = `🔁 <@${user}> took this conversation over from <@${owner}>.`;
      break;
    }
  }
  // Someone owns it now: "nobody is on shift" no longer describes it, even should it be unclaimed again.
  if (thread.assignment && 'nobodyOnShift' in thread.assignment)
    await conversations.setAssignment(teamId, channelId, threadTs, undefined);
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
  // The previous owner is named, so they hear of it; everyone reading the thread sees who answers now.
  if (line)
    await posts.line(
      teamId,
      { channel: channelId, threadTs },
      message('Conversation taken over', [context(line)]),
      `taken:${owner}>${user}:${Date.now()}`,
    );
  return { kind: 'done' };
}

/** Someone else pressed Unclaim: only the owner can; they are offered to take it over instead. */
function takeOverOffer(thread: ThreadInfo, owner: string): MessagePayload {
  const value = JSON.stringify({ c: thread.channelId, t: thread.threadTs, o: owner });
  return message(`Only the owner can unclaim this conversation. Take it over instead?`, [
    section(
      `<@${owner}> owns this conversation, so only they can unclaim it. Take it over to make it yours — they are told in the thread.`,
    ),
    actions([button('🔁 Take over', TAKE_OVER_ACTION, { style: 'primary', value })]),
  ]);
}

function staleCard(owner: string | undefined): string {
  return owner
    ? `Nothing changed: the card was out of date — <@${owner}> owns this conversation now.`
    : 'Nothing changed: the card was out of date — nobody owns this conversation now. Press *Claim* on the card to make it yours.';
}
