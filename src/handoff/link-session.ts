/**
 * **Link session**: the webhook payloads carry no chat session id, so an agent pastes the customer's current
 * session id (from the platform) into a modal. It is stored for that thread, shown on the parent card, and
 * every reply in the thread goes to it from then on. The button sits on the card and under the "not sent"
 * notices.
 */
import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Deps } from '../bot/deps.js';
import { LINK_SESSION_ACTION } from '../events/render/index.js';
import { code, customerLabel } from '../events/render/text.js';
import { postMessage, slackErrorCode } from '../events/slack-client.js';
import { updateCard } from '../events/threads.js';
import type { Logger } from '../logger.js';
import { message, section } from '../slack/blocks.js';
import { modal, readText, textInput } from '../slack/modals.js';
import { postToResponseUrl } from '../slack/response-url.js';
import { metadataKey, openMetadata, sealMetadata } from '../slack/sealed-metadata.js';
import type { ThreadInfo } from '../store/conversations.js';

export const LINK_SESSION_CALLBACK = 'handoff_link_session_modal';
const SESSION_BLOCK = 'session_id';
/**
 * Session ids are the platform's and their format is not documented (campaign-api.md §3): accept one token
 * of letters, digits and `- _ . :` (what the platform hands out, e.g. `sess-4f9c2a1b`), nothing that is
 * clearly something else — a sentence, a link, a paragraph.
 */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const SESSION_ID_MAX = 128;
const SESSION_ID_HINT = 'The customer’s current chat session id from the platform, e.g. sess-4f9c2a1b: one word of letters, digits and - _ . : only.';

/** Undefined when `value` can be a session id, else what is wrong with it (shown on the field). */
export function sessionIdProblem(value: string | undefined): string | undefined {
  if (!value) return 'Paste the session id from the platform.';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^www\./i.test(value)) return 'That is a link, not a session id — paste only the id, e.g. sess-4f9c2a1b.';
  if (/\s/.test(value)) return 'A session id is one word, with no spaces — paste only the id, e.g. sess-4f9c2a1b.';
  if (value.length > SESSION_ID_MAX) return `A session id is at most ${SESSION_ID_MAX} characters — paste only the id, e.g. sess-4f9c2a1b.`;
  if (!SESSION_ID.test(value)) return 'A session id has only letters, digits and - _ . : (starting with a letter or digit), e.g. sess-4f9c2a1b.';
  return undefined;
}

const threadRefSchema = z.object({ c: z.string().min(1), t: z.string().min(1) });

/** The parts of a block_actions body this needs (Bolt's types are a union over every container). */
const actionBodySchema = z.looseObject({
  trigger_id: z.string(),
  user: z.looseObject({ id: z.string() }),
  team: z.looseObject({ id: z.string() }).nullish(),
  channel: z.looseObject({ id: z.string() }).nullish(),
  container: z.looseObject({ message_ts: z.string().nullish(), thread_ts: z.string().nullish() }).nullish(),
  message: z.looseObject({ ts: z.string().nullish(), thread_ts: z.string().nullish() }).nullish(),
  response_url: z.string().nullish(),
});

export function registerLinkSession(app: App, deps: Deps): void {
  const log = deps.logger.child({ component: 'handoff' });

  app.action(LINK_SESSION_ACTION, async ({ ack, body, client }) => {
    await ack();
    const parsed = actionBodySchema.safeParse(body);
    if (!parsed.success) return;
    const b = parsed.data;
    const teamId = b.team?.id ?? '';
    const channel = b.channel?.id;
    // On the card itself the message is the thread's parent; under a notice it is a reply in the thread.
    const threadTs = b.message?.thread_ts ?? b.container?.thread_ts ?? b.message?.ts ?? b.container?.message_ts;
    const tell = (text: string) => (b.response_url ? postToResponseUrl(b.response_url, { response_type: 'ephemeral', replace_original: false, text }, log, deps.config.slack.apiUrl) : Promise.resolve(false));
    if (!channel || !threadTs) return;
    const thread = await findThreadSoon(deps, teamId, channel, threadTs);
    if (!thread) {
      await tell('This conversation is no longer on record (threads are kept 30 days after their last message), so no session can be linked here.');
      return;
    }
    if (thread.state === 'closed') {
      await tell('This conversation is closed (the chat session completed). The customer’s next message opens a new thread.');
      return;
    }
    await client.views.open({ trigger_id: b.trigger_id, view: linkModal(thread, metadataKey(deps.config)) });
  });

  app.view(LINK_SESSION_CALLBACK, async ({ ack, body, view, client }) => {
    const teamId = body.team?.id ?? body.user.team_id ?? '';
    // Sealed when the modal opened: a submission can only link the thread whose button opened it.
    const meta = openMetadata(metadataKey(deps.config), { callbackId: LINK_SESSION_CALLBACK, teamId }, view.private_metadata, threadRefSchema);
    const sessionId = readText(view, SESSION_BLOCK);
    if (!meta) {
      if (view.private_metadata) log.warn({ team: teamId, user: body.user.id }, 'Link session submitted with private_metadata the bot did not seal: refused');
      await ack({ response_action: 'errors', errors: { [SESSION_BLOCK]: 'This form lost track of its thread — close it and press Link session again.' } });
      return;
    }
    const problem = sessionIdProblem(sessionId);
    if (problem || !sessionId) {
      await ack({ response_action: 'errors', errors: { [SESSION_BLOCK]: problem ?? 'Paste the session id from the platform.' } });
      return;
    }
    const thread = await deps.store.conversations.findThread(teamId, meta.c, meta.t);
    if (!thread || thread.state === 'closed') {
      await ack({ response_action: 'errors', errors: { [SESSION_BLOCK]: 'This conversation is closed or no longer on record, so no session can be linked to it.' } });
      return;
    }
    await deps.store.conversations.linkSession(teamId, meta.c, meta.t, sessionId);
    await ack();
    log.info({ team: teamId, channel: meta.c, thread: meta.t, user: body.user.id }, 'chat session linked to a handoff thread');
    await afterLink(client, { ...thread, sessionId }, body.user.id, log);
  });
}

/**
 * The worker records a card right after Slack answers its post, so a click within those milliseconds would
 * find nothing yet: look again briefly (well within the trigger id's 3 s) before saying it is not on record.
 */
async function findThreadSoon(deps: Deps, teamId: string, channel: string, threadTs: string): Promise<ThreadInfo | null> {
  for (let attempt = 0; ; attempt++) {
    const thread = await deps.store.conversations.findThread(teamId, channel, threadTs);
    if (thread || attempt >= 4) return thread;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

function linkModal(thread: ThreadInfo, key: Buffer): ModalView {
  const who = customerLabel({ customerName: thread.facts.customerName, customerNumber: thread.customerNumber });
  return modal({
    callbackId: LINK_SESSION_CALLBACK,
    title: 'Link chat session',
    submit: 'Link',
    privateMetadata: sealMetadata(key, { callbackId: LINK_SESSION_CALLBACK, teamId: thread.teamId }, { c: thread.channelId, t: thread.threadTs }),
    blocks: [
      section(
        `Replies in this thread with ${who} go to the chat session you link here. Use the customer’s *current* session, ` +
          'handed off to a human on the platform — a stale or closed one is refused.',
      ),
      textInput(SESSION_BLOCK, 'Session id', {
        placeholder: 'sess-…',
        hint: SESSION_ID_HINT,
        maxLength: SESSION_ID_MAX,
        ...(thread.sessionId ? { initial: thread.sessionId } : {}),
      }),
    ],
  });
}

/** The card shows the new session; the thread says who linked which session. */
async function afterLink(client: WebClient, thread: ThreadInfo, userId: string, log: Logger): Promise<void> {
  try {
    await updateCard(client, thread, log);
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not show the linked session on the conversation card');
  }
  const text = `🔗 <@${userId}> linked chat session ${code(thread.sessionId)} — replies in this thread now go to it. A reply that was not sent can be sent with its *Send again* button.`;
  try {
    await postMessage(client, { channel: thread.channelId, threadTs: thread.threadTs }, message('Chat session linked', [section(text)]));
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not confirm the linked session in the thread');
  }
}
