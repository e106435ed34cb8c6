/**
 * **Quick reply** on a conversation card: a form to pick one of the workspace's saved replies (`/campaign
 * replies`) and send it — the text stays editable — like a reply typed in the thread (`relay.ts`
 * `sendOnBehalf`: shown in the thread, the same receipts, notices, Retry and stale-session handling).
 *
 * Picking fills the text: a select in an `actions` block sends `block_actions` as soon as something is chosen
 * (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload), and the form is replaced with
 * `views.update` (with the view's `hash`, so an older update never overwrites a newer one). Slack keeps what
 * was typed into an input whose `block_id` and `action_id` stay the same across an update
 * (https://api.slack.com/reference/block-kit/views, "Preserving input entry in views"), so each pick gives the
 * text a new `block_id`: the saved reply replaces the text, and the agent edits it from there.
 *
 * A form is sent at most once: its submission is marked by view id before anything is sent, so a submission
 * Slack delivers again (or a second press of Send while the first is on its way) sends nothing more.
 */
import type { App } from '@slack/bolt';
import type { ActionsBlock, KnownBlock, ModalView, PlainTextOption, StaticSelect } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import { context, escapeMrkdwn, plain, section } from '../slack/blocks.js';
import { modal, readText, textInput } from '../slack/modals.js';
import { slackErrorCode } from '../slack/post.js';
import { metadataKey, openMetadata, sealMetadata } from '../slack/sealed-metadata.js';
import { customerLabel } from '../slack/text.js';
import type { SavedReply, ThreadInfo } from '../store/index.js';
import { QUICK_REPLY_ACTION } from './card.js';
import { findThreadSoon, readClick } from './link-session.js';
import type { ReplyRelay } from './relay.js';
import { refusalReason, replyRefusal } from './standing.js';
import { postPrivately } from './thread-posts.js';

export const QUICK_REPLY_CALLBACK = 'handoff_quick_reply_modal';
/** action_id of the form's saved-reply select. */
export const QUICK_REPLY_PICK_ACTION = 'handoff_quick_reply_pick';
const PICK_BLOCK = 'quick_reply_pick';
/** The text's block_id is this plus `-<n>`, a new n per pick. */
const TEXT_BLOCK = 'quick_reply_text';
const TEXT_BLOCK_ID = /^quick_reply_text-(\d{1,6})$/;
/** A plain-text input holds at most 3,000 characters. */
const REPLY_MAX = 3000;
/** Slack gives up on a submission within seconds; a day covers any delivery of it again. */
const SUBMITTED_MARK_MS = 24 * 60 * 60_000;

const threadRefSchema = z.object({ c: z.string().min(1), t: z.string().min(1) });

const pickBodySchema = z.looseObject({
  team: z.looseObject({ id: z.string() }).nullish(),
  user: z.looseObject({ id: z.string() }),
  view: z.looseObject({
    id: z.string(),
    hash: z.string().nullish(),
    private_metadata: z.string().nullish(),
    blocks: z.array(z.looseObject({ block_id: z.string().nullish() })).nullish(),
  }),
  actions: z.array(
    z.looseObject({
      action_id: z.string(),
      selected_option: z.looseObject({ value: z.string() }).nullish(),
    }),
  ),
});

export function registerQuickReply(app: App, deps: Deps, relay: ReplyRelay): void {
  const log = deps.logger.child({ component: 'handoff' });
  const key = metadataKey(deps.config);
  const scope = (teamId: string) => ({ callbackId: QUICK_REPLY_CALLBACK, teamId });

  app.action(QUICK_REPLY_ACTION, async ({ ack, body, client }) => {
    await ack();
    const click = readClick(deps, body, log);
    if (!click) return;
    const { b, teamId, channel, tell } = click;
    // The button is on the card, the thread's parent.
    const cardTs = b.message?.ts ?? b.container?.message_ts ?? undefined;
    if (!channel || !cardTs) return;
    const thread = await findThreadSoon(deps, teamId, channel, cardTs);
    if (!thread || thread.state === 'closed') {
      await tell(
        'This conversation is closed (the chat session completed) or no longer on record, so nothing can be sent here.',
      );
      return;
    }
    const ws = { teamId, enterpriseId: b.enterprise?.id ?? b.team?.enterprise_id ?? undefined };
    const refusal = await replyRefusal(deps, client, ws, { id: b.user.id, team: b.user.team_id ?? undefined }, log);
    if (refusal) {
      await tell(`You can’t send a quick reply: ${refusalReason(refusal)}`);
      return;
    }
    const replies = await deps.store.savedReplies.list(teamId);
    const metadata = sealMetadata(key, scope(teamId), { c: thread.channelId, t: thread.threadTs });
    await client.views.open({ trigger_id: b.trigger_id, view: quickReplyForm(thread, replies, metadata, 1) });
  });

  app.action(QUICK_REPLY_PICK_ACTION, async ({ ack, body, client }) => {
    await ack();
    const parsed = pickBodySchema.safeParse(body);
    if (!parsed.success) return;
    const { view, actions, user } = parsed.data;
    const teamId = parsed.data.team?.id ?? '';
    const meta = openMetadata(key, scope(teamId), view.private_metadata ?? undefined, threadRefSchema);
    const name = actions.find((a) => a.action_id === QUICK_REPLY_PICK_ACTION)?.selected_option?.value;
    if (!meta || !name) return;
    const thread = await deps.store.conversations.findThread(teamId, meta.c, meta.t);
    if (!thread) return;
    const [replies, picked] = await Promise.all([
      deps.store.savedReplies.list(teamId),
      deps.store.savedReplies.get(teamId, name),
    ]);
    const n = (textBlockNumber(view.blocks ?? []) ?? 0) + 1;
    const next = quickReplyForm(thread, replies, view.private_metadata ?? '', n, picked ?? { gone: name });
    try {
      await client.views.update({ view_id: view.id, ...(view.hash ? { hash: view.hash } : {}), view: next });
    } catch (err) {
      // hash_conflict: a later pick already replaced the form, and that one stands.
      if (slackErrorCode(err) !== 'hash_conflict')
        log.warn(
          { err, team: teamId, user: user.id, slackError: slackErrorCode(err) },
          'could not fill in a picked saved reply',
        );
    }
  });

  app.view(QUICK_REPLY_CALLBACK, async ({ ack, body, view, client }) => {
    const teamId = body.team?.id ?? body.user.team_id ?? '';
    const user = body.user.id;
    const meta = openMetadata(key, scope(teamId), view.private_metadata, threadRefSchema);
    const textBlock = `${TEXT_BLOCK}-${textBlockNumber(view.blocks) ?? 1}`;
    const refuse = (sentence: string) => ack({ response_action: 'errors', errors: { [textBlock]: sentence } });
    if (!meta) {
      if (view.private_metadata)
        log.warn({ team: teamId, user }, 'Quick reply submitted with private_metadata the bot did not seal: refused');
      await refuse('This form lost track of its conversation — close it and press Quick reply on the card again.');
      return;
    }
    const text = readText(view, textBlock);
    if (!text) {
      await refuse('Write the reply, or pick a saved reply above.');
      return;
    }
    const thread = await deps.store.conversations.findThread(teamId, meta.c, meta.t);
    if (!thread || thread.state === 'closed') {
      await refuse('This conversation is closed (the chat session completed), so nothing can be sent to it.');
      return;
    }
    const ws = { teamId, enterpriseId: body.enterprise?.id ?? body.team?.enterprise_id ?? undefined };
    const refusal = await replyRefusal(deps, client, ws, { id: user, team: body.user.team_id }, log);
    if (refusal) {
      log.info({ team: teamId, user, refusal }, 'Quick reply refused: not a full member of the workspace');
      await refuse(`Not sent: ${refusalReason(refusal)}`);
      return;
    }
    const first = await deps.store.dedup.markOnce(teamId, 'quick-reply', view.id, SUBMITTED_MARK_MS);
    await ack();
    if (!first) {
      log.info(
        { team: teamId, user, view: view.id },
        'a Quick reply form was submitted again: already sent once, not twice',
      );
      return;
    }
    await send(relay, client, thread, user, text, log);
  });
}

async function send(
  relay: ReplyRelay,
  client: WebClient,
  thread: ThreadInfo,
  user: string,
  text: string,
  log: Logger,
): Promise<void> {
  try {
    await relay.sendOnBehalf(client, thread, user, text);
  } catch (err) {
    log.error(
      { err, team: thread.teamId, channel: thread.channelId, thread: thread.threadTs },
      'sending a quick reply failed',
    );
    await postPrivately(
      client,
      { channel: thread.channelId, threadTs: thread.threadTs },
      user,
      {
        text: 'Your quick reply may not have been sent',
        blocks: [
          section(
            '❌ Something went wrong on our side while sending your quick reply. Look for it in this thread (✅ means the customer has it) before sending it again.',
          ),
        ],
      },
      log,
    );
  }
}

/** The n of the form's text block (`quick_reply_text-<n>`), if it has one. */
function textBlockNumber(blocks: ReadonlyArray<{ block_id?: string | null | undefined }>): number | undefined {
  for (const block of blocks) {
    const n = TEXT_BLOCK_ID.exec(block.block_id ?? '')?.[1];
    if (n !== undefined) return Number(n);
  }
  return undefined;
}

/**
 * The form: the saved replies to pick from, and the reply's text (`n` numbers its block; `picked` fills it,
 * or names a saved reply removed since the form opened).
 */
function quickReplyForm(
  thread: ThreadInfo,
  replies: readonly SavedReply[],
  metadata: string,
  n: number,
  picked?: SavedReply | { gone: string },
): ModalView {
  const who = customerLabel({ customerName: thread.facts.customerName, customerNumber: thread.customerNumber });
  const chosen = picked && 'text' in picked ? picked : undefined;
  const blocks: KnownBlock[] = [
    section(
      `Reply to ${who}. The text below is sent as it reads — plain text, exactly what the customer gets — and shown in the thread.`,
    ),
  ];
  if (replies.length > 0) blocks.push(pickBlock(replies, chosen?.name));
  else
    blocks.push(
      context(
        'No saved replies yet: an admin saves them with `/campaign replies add &lt;name&gt; &lt;text…&gt;`. You can still write a reply here.',
      ),
    );
  if (picked && 'gone' in picked)
    blocks.push(context(`“${escapeMrkdwn(picked.gone)}” is no longer saved — an admin removed it.`));
  blocks.push(
    textInput(`${TEXT_BLOCK}-${n}`, 'Reply', {
      multiline: true,
      maxLength: REPLY_MAX,
      ...(chosen ? { initial: chosen.text.slice(0, REPLY_MAX) } : {}),
    }),
  );
  return modal({
    callbackId: QUICK_REPLY_CALLBACK,
    title: 'Quick reply',
    submit: 'Send',
    privateMetadata: metadata,
    blocks,
  });
}

function pickBlock(replies: readonly SavedReply[], chosen: string | undefined): ActionsBlock {
  const options: PlainTextOption[] = replies.slice(0, 100).map((r) => ({
    text: plain(r.name, 75),
    value: r.name,
    description: plain(r.text.replace(/\s+/g, ' '), 75),
  }));
  const initial = options.find((o) => o.value === chosen);
  const select: StaticSelect = {
    type: 'static_select',
    action_id: QUICK_REPLY_PICK_ACTION,
    placeholder: plain('Pick a saved reply', 150),
    options,
    ...(initial ? { initial_option: initial } : {}),
  };
  return { type: 'actions', block_id: PICK_BLOCK, elements: [select] };
}
