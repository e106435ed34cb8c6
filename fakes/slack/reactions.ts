/** reactions.add / reactions.remove on stored messages. */
import type { SlackState, Handler, TokenInfo } from './state.js';
import type { SlackArgs } from './types.js';
import { fail, str, type Json } from './util.js';

function react(s: SlackState, args: SlackArgs, auth: TokenInfo, add: boolean): Json {
  const channel = str(args, 'channel');
  const ts = str(args, 'timestamp');
  const name = (str(args, 'name') ?? '').replace(/^:|:$/g, '');
  if (!name) return fail('invalid_name');
  if (!channel || !ts) return fail('no_item_specified');
  const resolved = s.resolveChannel(channel);
  if ('error' in resolved) return fail(resolved.error);
  const access = s.channelAccessError(resolved.channel, auth, false);
  if (access) return fail(access);
  const msg = s.findMessage(resolved.channel.id, ts);
  if (!msg) return fail('message_not_found');
  const reactions = msg.reactions ?? [];
  const existing = reactions.find((r) => r.name === name);
  if (add) {
    if (existing?.users.includes(auth.userId)) return fail('already_reacted');
    if (existing) {
      existing.users.push(auth.userId);
      existing.count += 1;
    } else {
      reactions.push({ name, users: [auth.userId], count: 1 });
    }
    msg.reactions = reactions;
    return { ok: true };
  }
  if (!existing?.users.includes(auth.userId)) return fail('no_reaction');
  existing.users = existing.users.filter((u) => u !== auth.userId);
  existing.count -= 1;
  msg.reactions = reactions.filter((r) => r.count > 0);
  if (msg.reactions.length === 0) delete msg.reactions;
  return { ok: true };
}

export function reactionHandlers(s: SlackState): Record<string, Handler> {
  return {
    'reactions.add': (args, auth) => react(s, args, auth, true),

    'reactions.remove': (args, auth) => react(s, args, auth, false),
  };
}
