/**
 * **Link session**: the webhook payloads carry no chat session id, so an agent pastes the customer's current
 * session id (from the platform) into a modal. It is stored for that thread, shown on the parent card, and
 * every reply in the thread goes to it from then on. The button sits on the card and under the "not sent"
 * notices. When a payload names another session than the linked one, the card offers **Switch to reported
 * session**. Only full members of the workspace may link or switch (`standing.ts`); both are logged.
 */
import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Deps } from '../app/deps.js';
import { LINK_SESSION_ACTION, SWITCH_SESSION_ACTION } from './card.js';
import { code, customerLabel } from '../slack/text.js';
import { slackErrorCode } from '../slack/post.js';
import { updateCard } from './threads.js';
import type { Logger } from '../logger.js';
import { message, section } from '../slack/blocks.js';
import { modal, readText, textInput } from '../slack/modals.js';
import { postToResponseUrl } from '../slack/response-url.js';
import { metadataKey, openMetadata, sealMetadata } from '../slack/sealed-metadata.js';
import type { ThreadInfo } from '../store/conversations.js';
import { refusalReason, replyRefusal } from './standing.js';
import { postPrivately } from './thread-posts.js';

export const LINK_SESSION_CALLBACK = 'handoff_link_session_modal';
const SESSION_BLOCK = 'session_id';
/**
 * Session ids are the platform's and their format is not documented (docs/PLATFORM-API.md › Sessions): accept one token
 * of letters, digits and `- _ . :` (what the platform hands out, e.g. `sess-4f9c2a1b`), nothing that is
 * clearly something else — a sentence, a link, a paragraph.
 */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const SESSION_ID_MAX = 128;
/** Where the id is: the platform shows it on the customer's chat; webhooks never carry it (PLATFORM-API.md › Sessions). */
const SESSION_ID_HINT =
  'Copy it from the platform’s portal, on this customer’s chat (the session handed off to a human), e.g. sess-4f9c2a1b. Or reply “session: <id>” in the thread.';

/** Undefined when `value` can be a session id, else what is wrong with it (shown on the field or told). */
export function sessionIdProblem(value: string | undefined): string | undefined {
  if (!value) return 'Paste the session id from the platform.';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^www\./i.test(value))
    return 'That is a link, not a session id — paste only the id, e.g. sess-4f9c2a1b.';
  if (/\s/.test(value)) return 'A session id is one word, with no spaces — paste only the id, e.g. sess-4f9c2a1b.';
  if (value.length > SESSION_ID_MAX)
    return `A session id is at most ${SESSION_ID_MAX} characters — paste only the id, e.g. sess-4f9c2a1b.`;
  if (!SESSION_ID.test(value))
    return 'A session id has only letters, digits and - _ . : (starting with a letter or digit), e.g. sess-4f9c2a1b.';
  return undefined;
}

const threadRefSchema = z.object({ c: z.string().min(1), t: z.string().min(1) });

/** The parts of a block_actions body this needs (Bolt's types are a union over every container). */
const actionBodySchema = z.looseObject({
  trigger_id: z.string(),
  user: z.looseObject({ id: z.string(), team_id: z.string().nullish() }),
  team: z.looseObject({ id: z.string(), enterprise_id: z.string().nullish() }).nullish(),
  enterprise: z.looseObject({ id: z.string() }).nullish(),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().nullish() })).optional(),
  channel: z.looseObject({ id: z.string() }).nullish(),
  container: z.looseObject({ message_ts: z.string().nullish(), thread_ts: z.string().nullish() }).nullish(),
  message: z.looseObject({ ts: z.string().nullish(), thread_ts: z.string().nullish() }).nullish(),
  response_url: z.string().nullish(),
});

/** The click's body, workspace and channel, and a way to answer the clicker privately (its response_url). */
export function readClick(deps: Deps, body: unknown, log: Logger) {
  const parsed = actionBodySchema.safeParse(body);
  if (!parsed.success) return undefined;
  const b = parsed.data;
  const tell = (text: string): Promise<boolean> =>
    b.response_url
      ? postToResponseUrl(
          b.response_url,
          { response_type: 'ephemeral', replace_original: false, text },
          log,
          deps.config.slack,
        )
      : Promise.resolve(false);
  return { b, teamId: b.team?.id ?? '', channel: b.channel?.id, tell };
}

export function registerLinkSession(app: App, deps: Deps): void {
  const log = deps.logger.child({ component: 'handoff' });

  app.action(LINK_SESSION_ACTION, async ({ ack, body, client }) => {
    await ack();
    const click = readClick(deps, body, log);
    if (!click) return;
    const { b, teamId, channel, tell } = click;
    // On the card itself the message is the thread's parent; under a notice it is a reply in the thread.
    const threadTs = b.message?.thread_ts ?? b.container?.thread_ts ?? b.message?.ts ?? b.container?.message_ts;
    if (!channel || !threadTs) return;
    const thread = await findThreadSoon(deps, teamId, channel, threadTs);
    if (!thread) {
      await tell(
        'This conversation is no longer on record (threads are kept 30 days after their last message), so no session can be linked here.',
      );
      return;
    }
    if (thread.state === 'closed') {
      await tell(
        'This conversation is closed (the chat session completed). The customer’s next message opens a new thread.',
      );
      return;
    }
    // The form names the customer and the linked session: only for those who may answer them.
    const ws = { teamId, enterpriseId: b.enterprise?.id ?? b.team?.enterprise_id ?? undefined };
    const refusal = await replyRefusal(deps, client, ws, { id: b.user.id, team: b.user.team_id ?? undefined }, log);
    if (refusal) {
      await tell(`No session can be linked: ${refusalReason(refusal)}`);
      return;
    }
    await client.views.open({ trigger_id: b.trigger_id, view: linkModal(thread, metadataKey(deps.config)) });
  });

  app.view(LINK_SESSION_CALLBACK, async ({ ack, body, view, client }) => {
    const teamId = body.team?.id ?? body.user.team_id ?? '';
    // Sealed when the modal opened: a submission can only link the thread whose button opened it.
    const meta = openMetadata(
      metadataKey(deps.config),
      { callbackId: LINK_SESSION_CALLBACK, teamId },
      view.private_metadata,
      threadRefSchema,
    );
    const sessionId = readText(view, SESSION_BLOCK);
    if (!meta) {
      if (view.private_metadata)
        log.warn(
          { team: teamId, user: body.user.id },
          'Link session submitted with private_metadata the bot did not seal: refused',
        );
      await ack({
        response_action: 'errors',
        errors: { [SESSION_BLOCK]: 'This form lost track of its thread — close it and press Link session again.' },
      });
      return;
    }
    const problem = sessionIdProblem(sessionId);
    if (problem || !sessionId) {
      await ack({
        response_action: 'errors',
        errors: { [SESSION_BLOCK]: problem ?? 'Paste the session id from the platform.' },
      });
      return;
    }
    const thread = await deps.store.conversations.findThread(teamId, meta.c, meta.t);
    if (!thread || thread.state === 'closed') {
      await ack({
        response_action: 'errors',
        errors: {
          [SESSION_BLOCK]: 'This conversation is closed or no longer on record, so no session can be linked to it.',
        },
      });
      return;
    }
    const ws = { teamId, enterpriseId: body.enterprise?.id ?? body.team?.enterprise_id ?? undefined };
    const refusal = await replyRefusal(deps, client, ws, { id: body.user.id, team: body.user.team_id }, log);
    if (refusal) {
      log.info(
        { team: teamId, user: body.user.id, refusal },
        'Link session refused: not a full member of the workspace',
      );
      await ack({ response_action: 'errors', errors: { [SESSION_BLOCK]: `Not linked: ${refusalReason(refusal)}` } });
      return;
    }
    await deps.store.conversations.linkSession(teamId, meta.c, meta.t, sessionId);
    await ack();
    log.info(
      { team: teamId, channel: meta.c, thread: meta.t, user: body.user.id },
      'chat session linked to a handoff thread',
    );
    const text = `🔗 You linked chat session ${code(sessionId)} — replies in this thread now go to it. A reply that was not sent can be sent with its *Send again* button.`;
    await afterLink(client, { ...thread, sessionId }, body.user.id, text, log);
  });

  app.action(SWITCH_SESSION_ACTION, async ({ ack, body, client }) => {
    await ack();
    const click = readClick(deps, body, log);
    if (!click) return;
    const { b, teamId, channel, tell } = click;
    // The button is on the card, the thread's parent.
    const cardTs = b.message?.ts ?? b.container?.message_ts;
    const value = b.actions?.find((a) => a.action_id === SWITCH_SESSION_ACTION)?.value ?? undefined;
    if (!channel || !cardTs) return;
    const thread = await deps.store.conversations.findThread(teamId, channel, cardTs);
    if (!thread || thread.state === 'closed') {
      await tell('This conversation is closed or no longer on record, so its session can’t be switched.');
      return;
    }
    const ws = { teamId, enterpriseId: b.enterprise?.id ?? b.team?.enterprise_id ?? undefined };
    const refusal = await replyRefusal(deps, client, ws, { id: b.user.id, team: b.user.team_id ?? undefined }, log);
    if (refusal) {
      log.info(
        { team: teamId, user: b.user.id, refusal },
        'session switch refused: not a full member of the workspace',
      );
      await tell(`The session was not switched: ${refusalReason(refusal)}`);
      return;
    }
    // The value comes back through the user's client: only the session this card reports can be switched to.
    const to = thread.reportedSessionId;
    if (!to || value !== to) {
      log.warn(
        { team: teamId, channel, thread: cardTs, user: b.user.id },
        'a session switch named a session this card does not report: refused',
      );
      await tell('That button is out of date, so the session was not switched — the card shows where replies go now.');
      return;
    }
    await deps.store.conversations.linkSession(teamId, channel, cardTs, to);
    log.info(
      { team: teamId, channel, thread: cardTs, user: b.user.id, from: thread.sessionId, to },
      'handoff thread switched to the session the platform reported',
    );
    const text = `🔁 You switched this thread from session ${code(thread.sessionId)} to ${code(to)}, which the platform reported — replies now go to it.`;
    await afterLink(client, { ...thread, sessionId: to, reportedSessionId: undefined }, b.user.id, text, log);
  });
}

/**
 * The worker records a card right after Slack answers its post, so a click within those milliseconds would
 * find nothing yet: look again briefly (well within the trigger id's 3 s) before saying it is not on record.
 */
export async function findThreadSoon(
  deps: Deps,
  teamId: string,
  channel: string,
  threadTs: string,
): Promise<ThreadInfo | null> {
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
    privateMetadata: sealMetadata(
      key,
      { callbackId: LINK_SESSION_CALLBACK, teamId: thread.teamId },
      { c: thread.channelId, t: thread.threadTs },
    ),
    // One field, empty and focused: linking (or changing) a session costs one paste.
    blocks: [
      section(
        `Replies in this thread with ${who} go to the chat session you link here` +
          (thread.sessionId ? ` (now ${code(thread.sessionId)})` : '') +
          '. Use the customer’s *current* session — a stale or closed one is refused.',
      ),
      textInput(SESSION_BLOCK, 'Session id', {
        placeholder: 'sess-…',
        hint: SESSION_ID_HINT,
        maxLength: SESSION_ID_MAX,
        focus: true,
      }),
    ],
  });
}

/**
 * The card shows the new session (for everyone); the one who linked (or switched) is told privately in the
 * thread — the thread holds the conversation, not its bookkeeping.
 */
async function afterLink(
  client: WebClient,
  thread: ThreadInfo,
  user: string,
  text: string,
  log: Logger,
): Promise<void> {
  try {
    await updateCard(client, thread, log);
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not show the linked session on the conversation card');
  }
  await postPrivately(
    client,
    { channel: thread.channelId, threadTs: thread.threadTs },
    user,
    message('Chat session linked', [section(text)]),
    log,
  );
}
