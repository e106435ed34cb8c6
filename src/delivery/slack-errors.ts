/**
 * Slack's documented errors, as one table: what each answer means for a post that has not gone out yet. Every
 * part that posts in the background reads Slack's refusals through `SlackPace.judge` (src/delivery/pace.ts),
 * which puts this table together with what the transport saw (429, 5xx, a dropped connection).
 *
 * Sources — the method pages' "Errors" lists and the Web API's common errors:
 * https://docs.slack.dev/reference/methods/chat.postMessage, …/chat.update, …/reactions.add,
 * …/files.completeUploadExternal, …/conversations.history, and https://docs.slack.dev/apis/web-api/#errors.
 * Slack documents `fatal_error` and `internal_error` as "It's possible some aspect of the operation succeeded
 * before the error was raised": their outcome is unknown, so a post is looked up before it is sent again.
 */

/**
 * - `wait`: nothing happened in Slack and time heals it — wait and send again (never a failed try).
 * - `unknown`: Slack may have carried the call out — wait, then look for it before sending again.
 * - `channel`: the channel refuses posts until someone acts (invite the bot, unarchive, allow posting).
 * - `workspace`: the workspace refuses every call (token revoked, app not granted): hold its work until reinstall.
 * - `payload`: the message itself is wrong: sending it again cannot help (a dead letter with its reason).
 * - `other`: anything else: a failed try (retried with backoff, then a dead letter).
 */
export type SlackErrorClass = 'wait' | 'unknown' | 'channel' | 'workspace' | 'payload' | 'other';

const TABLE: Readonly<Record<string, Exclude<SlackErrorClass, 'other'>>> = {
  // Time heals these, and Slack did nothing.
  ratelimited: 'wait',
  rate_limited: 'wait',
  service_unavailable: 'wait', // "The service is temporarily unavailable"
  request_timeout: 'wait', // "The method was called via a POST request, but the POST data was either missing or truncated"
  team_added_to_org: 'wait', // "…undergoing migration to an Enterprise Organization … intermittently unavailable"
  // https://docs.slack.dev/reference/methods/chat.postMessage › Errors: message_limit_exceeded, "Members on this
  // team are sending too many messages" — a free workspace's message limit. Nothing was posted and time heals
  // it, in minutes: SlackPace holds the workspace's posting budget, every channel's posts together.
  message_limit_exceeded: 'wait',
  // "It's possible some aspect of the operation succeeded before the error was raised."
  fatal_error: 'unknown',
  internal_error: 'unknown',
  // The channel refuses until someone acts.
  not_in_channel: 'channel',
  channel_not_found: 'channel',
  is_archived: 'channel',
  restricted_action: 'channel', // "A workspace preference prevents the authenticated user from posting"
  restricted_action_read_only_channel: 'channel', // "Cannot post any message into a read-only channel"
  restricted_action_thread_only_channel: 'channel', // "Cannot post top-level messages into a thread-only channel"
  ekm_access_denied: 'channel', // "Administrators have suspended the ability to post a message"
  // conversations.history's "The workspace token used in this request does not have the permissions necessary to
  // complete the request": the channel's (a private one the app may not read), not the whole workspace.
  no_permission: 'channel',
  // Only a thread reply is refused, there ("This message type cannot have thread replies", "Cannot post thread
  // replies into a non_threadable channel"): that post goes top-level instead (src/delivery/idempotent-posts.ts), and a
  // refusal that still reaches here is that post's alone.
  cannot_reply_to_message: 'payload',
  restricted_action_non_threadable_channel: 'payload',
  // The workspace refuses every call of the app.
  not_authed: 'workspace',
  invalid_auth: 'workspace',
  account_inactive: 'workspace',
  token_revoked: 'workspace',
  token_expired: 'workspace',
  org_login_required: 'workspace',
  team_access_not_granted: 'workspace',
  missing_scope: 'workspace',
  not_allowed_token_type: 'workspace',
  access_denied: 'workspace',
  accesslimited: 'workspace',
  enterprise_is_restricted: 'workspace',
  two_factor_setup_required: 'workspace',
  // The message is wrong: the same message fails again.
  invalid_blocks: 'payload',
  invalid_blocks_format: 'payload',
  invalid_attachments: 'payload',
  too_many_attachments: 'payload',
  msg_too_long: 'payload',
  msg_blocks_too_long: 'payload',
  no_text: 'payload',
  invalid_metadata_format: 'payload',
  invalid_metadata_schema: 'payload',
  metadata_too_large: 'payload',
  metadata_must_be_sent_from_app: 'payload',
  invalid_arguments: 'payload',
  invalid_arg_name: 'payload',
  invalid_array_arg: 'payload',
  invalid_charset: 'payload',
  invalid_form_data: 'payload',
  invalid_post_type: 'payload',
  missing_post_type: 'payload',
  thread_not_found: 'payload', // the card a reply belongs under was deleted
  invalid_thread_ts: 'payload',
  message_not_found: 'payload',
  as_user_not_supported: 'payload',
  // https://docs.slack.dev/reference/methods/chat.update › Errors: "Authenticated user does not have permission to
  // update this message" — a card or notice that is not (or no longer) the app's to edit.
  cant_update_message: 'payload',
  // https://docs.slack.dev/reference/methods/files.info, …/files.completeUploadExternal: the uploaded file is gone.
  file_not_found: 'payload',
  file_deleted: 'payload',
};

/**
 * The call asked for what is so already: the reaction is there (`already_reacted`,
 * https://docs.slack.dev/reference/methods/reactions.add) or gone (`no_reaction`, …/reactions.remove).
 */
export function isAlreadyDone(code: string | undefined): boolean {
  return code === 'already_reacted' || code === 'no_reaction';
}

/** Slack no longer has the file (`file_not_found`, `file_deleted`: https://docs.slack.dev/reference/methods/files.info). */
export function isFileGone(code: string | undefined): boolean {
  return code === 'file_not_found' || code === 'file_deleted';
}

/**
 * Nothing can be posted or edited there, now or later, unless someone acts: the channel refuses the app, or the
 * message (a card, a thread) is gone or is not the app's to edit.
 */
export function isGoneOrRefused(code: string | undefined): code is string {
  const cls = code === undefined ? 'other' : classOfSlackError(code);
  return cls === 'channel' || cls === 'payload';
}

/**
 * Metadata Slack dropped from a post it took (`response_metadata.warnings`: `invalid_metadata_schema`,
 * `metadata_too_large`…; https://docs.slack.dev/messaging/message-metadata): the post carries no idempotency key.
 */
export function isMetadataWarning(warning: string): boolean {
  return warning.includes('metadata');
}

/** Not sent: something the bot waits for from Slack (an event, the next history read) first. */
export class WaitForSlack extends Error {
  override readonly name = 'WaitForSlack';
  constructor(
    readonly delayMs: number,
    what: string,
  ) {
    super(`not sent yet: waiting ${delayMs} ms for ${what}`);
  }
}

/** The class of a Slack error code (`ok:false` answers); `other` for codes the table does not list. */
export function classOfSlackError(code: string): SlackErrorClass {
  return Object.hasOwn(TABLE, code) ? TABLE[code]! : 'other';
}

/**
 * Of those, the channel is gone rather than closed to the app (https://docs.slack.dev/reference/methods/chat.postMessage
 * › Errors: `channel_not_found` "Value passed for channel was invalid", `is_archived` "Channel has been archived"):
 * what is scheduled there ends, where a removed bot (`not_in_channel`) keeps it for when it is invited back.
 */
export function isChannelGone(code: string | undefined): boolean {
  return code === 'channel_not_found' || code === 'is_archived';
}

/** Codes after which a channel takes no post until someone acts (pause it; tell who set it up). */
export function isChannelRefusal(code: string | undefined): code is string {
  return code !== undefined && classOfSlackError(code) === 'channel';
}
