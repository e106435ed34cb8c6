/**
 * Which scope each Web API method needs of a bot token, as Slack enforces it (`missing_scope` with `needed`):
 * the method pages' "Required scopes", and for conversation methods the scope of the channel's kind.
 */
import type { SlackArgs } from './types.js';
import { CONVERSATION_TYPE_SCOPES, usersConversationTypes } from './users.js';
import { str } from './util.js';

/** Which scope each method needs (bot token). `null`: no scope. Channel-dependent ones are computed. */
const METHOD_SCOPES: Record<string, string | null> = {
  'auth.test': null,
  'auth.revoke': null,
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.delete': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'chat.getPermalink': null,
  'views.open': null,
  'views.update': null,
  'views.push': null,
  'views.publish': null,
  'reactions.add': 'reactions:write',
  'reactions.remove': 'reactions:write',
  'users.info': 'users:read',
  'users.list': 'users:read',
  'usergroups.list': 'usergroups:read',
  'conversations.open': 'im:write',
  // users.conversations: computed from its `types` (see neededScope).
  'files.info': 'files:read',
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'team.info': 'team:read',
  'apps.uninstall': null,
};

function conversationKind(channelId: string): 'channels' | 'groups' | 'im' | 'mpim' {
  if (channelId.startsWith('D')) return 'im';
  if (channelId.startsWith('G')) return 'groups';
  return 'channels';
}

/** The scope `method` needs with these `args`; `granted` decides which of several Slack names first. */
export function neededScope(method: string, args: SlackArgs, granted: readonly string[]): string | null {
  if (method === 'conversations.history' || method === 'conversations.replies') {
    return `${conversationKind(str(args, 'channel') ?? '')}:history`;
  }
  if (method === 'conversations.info' || method === 'conversations.members')
    return `${conversationKind(str(args, 'channel') ?? '')}:read`;
  if (method === 'users.conversations') {
    // Each requested type needs its own read scope; the first one missing is the one Slack names.
    const types = usersConversationTypes(args);
    if ('error' in types) return null;
    const scopes = types.kinds.map((k) => CONVERSATION_TYPE_SCOPES[k]);
    return scopes.find((scope) => !granted.includes(scope)) ?? scopes[0] ?? null;
  }
  return METHOD_SCOPES[method] ?? null;
}
