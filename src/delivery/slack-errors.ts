/**
 * Slack's documented errors as one table: what each answer means for a post not yet out. `SlackPace.judge`
 * (src/delivery/pace.ts) puts it together with what the transport saw. Sources: the method pages' "Errors" lists
 * (https://docs.slack.dev/reference/methods/chat.postMessage, …/chat.update, …/reactions.add,
 * …/files.completeUploadExternal, …/conversations.history) and https://docs.slack.dev/apis/web-api/#errors.
 */

/**
 * `wait`: nothing happened and time heals it; `unknown`: Slack may have carried it out (look it up before sending
 * again); `channel`: refused there until someone acts; `workspace`: every call refused until reinstall;
 * `payload`: the message itself is wrong (a dead letter); `other`: a failed try (retried, then a dead letter).
 */
export type SlackErrorClass = 'wait' | 'unknown' | 'channel' | 'workspace' | 'payload' | 'other';

/** Whether time alone may heal a call of this class (`wait`, `unknown`): it is tried again, never given up. */
export function healsWithTime(verdict: SlackErrorClass | undefined): boolean {
  return verdict === 'wait' || verdict === 'unknown';
}

const TABLE: Readonly<Record<string, Exclude<SlackErrorClass, 'other'>>> = {
  // Time heals these, and Slack did nothing.
  ratelimited: 'wait',
  rate_limited: 'wait',
  service_unavailable: 'wait', // "The service is temporarily unavailable"
  request_timeout: 'wait', // "The method was called via a POST request, but the POST data was either missing or truncated"
  team_added_to_org: 'wait', // "…undergoing migration to an Enterprise Organization … intermittently unavailable"
  // chat.postMessage › Errors: "Members on this team are sending too many messages" (a free plan's limit): minutes.
  message_limit_exceeded: 'wait',
  // "It's possible some aspect of the operation succeeded before the error was raised": looked up first.
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
  // conversations.history: "…does not have the permissions necessary to complete the request": that channel's.
  no_permission: 'channel',
  // "This message type cannot have thread replies", "Cannot post thread replies into a non_threadable channel":
  // that post goes top-level instead (src/delivery/idempotent-posts.ts); refused still, it is that post's alone.
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
  // chat.update › Errors: "Authenticated user does not have permission to update this message".
  cant_update_message: 'payload',
  // https://docs.slack.dev/reference/methods/files.info, …/files.completeUploadExternal: the uploaded file is gone.
  file_not_found: 'payload',
  file_deleted: 'payload',
};

/**
 * Already so: the reaction is there (`already_reacted`, https://docs.slack.dev/reference/methods/reactions.add)
 * or gone (`no_reaction`, …/reactions.remove).
 */
export function isAlreadyDone(code: string | undefined): boolean {
  return code === 'already_reacted' || code === 'no_reaction';
}

/** Slack no longer has the file (`file_not_found`, `file_deleted`: https://docs.slack.dev/reference/methods/files.info). */
export function isFileGone(code: string | undefined): boolean {
  return code === 'file_not_found' || code === 'file_deleted';
}

/** A thread-only channel ("Cannot post top-level messages into a thread-only channel") still takes replies. */
export function holdsOnlyTopLevel(code: string | undefined): boolean {
  return code === 'restricted_action_thread_only_channel';
}

/**
 * A thread reply refused for its place only (chat.postMessage › Errors: `cannot_reply_to_message`,
 * `restricted_action_non_threadable_channel`): the same post goes top-level.
 */
export function isNoReplyHere(code: string | undefined): boolean {
  return code === 'cannot_reply_to_message' || code === 'restricted_action_non_threadable_channel';
}

/** Nothing can be posted or edited there until someone acts: the channel refuses, or the message is gone. */
export function isGoneOrRefused(code: string | undefined): code is string {
  const cls = code === undefined ? 'other' : classOfSlackError(code);
  return cls === 'channel' || cls === 'payload';
}

/** Metadata Slack dropped (https://docs.slack.dev/messaging/message-metadata): the post has no idempotency key. */
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
 * The channel is gone, not closed to the app (chat.postMessage › Errors: "Value passed for channel was invalid",
 * "Channel has been archived"): what is scheduled there ends; a removed bot's (`not_in_channel`) is kept.
 */
export function isChannelGone(code: string | undefined): boolean {
  return code === 'channel_not_found' || code === 'is_archived';
}

/** Codes after which a channel takes no post until someone acts (pause it; tell who set it up). */
export function isChannelRefusal(code: string | undefined): code is string {
  return code !== undefined && classOfSlackError(code) === 'channel';
}
