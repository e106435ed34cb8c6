/**
 * `session: <id>` as a reply in a conversation thread links that chat session, like the card's **Link
 * session** form but in one paste where the agent already is. Like a `note:` reply it stays in Slack (it is
 * never sent to the customer). Only full members of the workspace may link (`standing.ts`); the thread gets one
 * line saying which session replies now go to, and a bad id or a refusal one sentence told to its author alone
 * (with ⚠️ on the reply as the lasting sign).
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import type { Workspace } from '../app/membership.js';
import type { Logger } from '../logger.js';
import { context, message, section } from '../slack/blocks.js';
import { slackErrorCode } from '../slack/post.js';
import { code } from '../slack/text.js';
import type { ThreadInfo } from '../store/index.js';
import { sessionIdProblem } from './link-session.js';
import { refusalReason, replyRefusal } from './standing.js';
import { postPrivately, type ThreadPosts } from './thread-posts.js';
import { updateCard } from './threads.js';

const SESSION_REPLY = /^\s*session:\s*([\s\S]*)$/i;
/** Slack sends a pasted link as `<https://…>` (or `<https://…|label>`): the link, so it is refused as one. */
const SLACK_LINK = /^<([^|>]*)(?:\|[^>]*)?>$/;

/** The id written after `session:` (maybe empty), or undefined when the reply is not a `session:` reply. */
export function sessionReplyId(text: string | undefined): string | undefined {
  const written = SESSION_REPLY.exec(text ?? '')?.[1]?.trim();
  if (written === undefined) return undefined;
  return SLACK_LINK.exec(written)?.[1] ?? written;
}

export interface SessionReply {
  user: string;
  /** The author's team in a shared channel (the event's `user_team`). */
  userTeam?: string | undefined;
  ts: string;
  sessionId: string;
}

/** Links the session a `session:` reply names, or tells its author in one sentence why not. */
export async function linkFromReply(
  deps: Deps,
  posts: ThreadPosts,
  client: WebClient,
  ws: Workspace,
  thread: ThreadInfo,
  reply: SessionReply,
  log: Logger,
): Promise<void> {
  const address = { channel: thread.channelId, threadTs: thread.threadTs, replyTs: reply.ts };
  const refuse = async (sentence: string) => {
    await postPrivately(client, address, reply.user, message(sentence, [section(sentence)]), log);
    await posts.receipt(ws.teamId, address, { add: 'warning' });
  };
  const refusal = await replyRefusal(deps, client, ws, { id: reply.user, team: reply.userTeam }, log);
  if (refusal) {
    log.info({ refusal }, 'a session: reply from someone who may not answer customers: nothing linked');
    await refuse(`No session was linked: ${refusalReason(refusal)}`);
    return;
  }
  if (thread.state === 'closed') {
    await refuse('No session was linked: this conversation is closed. The customer’s next message opens a new thread.');
    return;
  }
  const problem = reply.sessionId
    ? sessionIdProblem(reply.sessionId)
    : 'Write the session id after `session:`, e.g. `session: sess-4f9c2a1b`.';
  if (problem) {
    log.info('a session: reply named no usable session id: nothing linked');
    await refuse(`No session was linked. ${problem}`);
    return;
  }
  const { teamId, channelId, threadTs } = thread;
  await deps.store.conversations.linkSession(teamId, channelId, threadTs, reply.sessionId);
  log.info('chat session linked to a handoff thread from a session: reply');
  try {
    await updateCard(client, { ...thread, sessionId: reply.sessionId, reportedSessionId: undefined }, log);
  } catch (err) {
    log.warn({ err, slackError: slackErrorCode(err) }, 'could not show the linked session on the conversation card');
  }
  const line = `🔗 Linked chat session ${code(reply.sessionId)} — replies in this thread now go to it.`;
  await posts.line(teamId, address, message('Chat session linked', [context(line)]), `session:${reply.ts}`);
}
