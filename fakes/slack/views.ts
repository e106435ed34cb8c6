/**
 * views.* methods and what Slack does with view_submission acks (update / push). trigger_ids expire after
 * 3 s and can be exchanged once (`expired_trigger_id` / `exchanged_trigger_id`), like Slack's.
 */
import { viewErrors } from './block-kit.js';
import type { SlackState, Handler, Trigger } from './state.js';
import type { SlackArgs, SlackView, TriggerContext } from './types.js';
import { clone, fail, hex, invalidArguments, isObj, slackId, str, type Json } from './util.js';

function makeView(s: SlackState, input: Json, teamId: string, botId: string, prev?: SlackView): SlackView {
  return {
    id: prev?.id ?? slackId('V'),
    team_id: teamId,
    type: typeof input.type === 'string' ? input.type : 'modal',
    title: clone(input.title),
    submit: input.submit === undefined ? undefined : clone(input.submit),
    close: input.close === undefined ? undefined : clone(input.close),
    blocks: Array.isArray(input.blocks) ? clone(input.blocks) : [],
    private_metadata: typeof input.private_metadata === 'string' ? input.private_metadata : '',
    callback_id: typeof input.callback_id === 'string' ? input.callback_id : '',
    state: { values: {} },
    hash: `${Math.floor(Date.now() / 1000)}.${hex(4)}`,
    clear_on_close: input.clear_on_close === true,
    notify_on_close: input.notify_on_close === true,
    root_view_id: prev?.root_view_id ?? null,
    previous_view_id: prev?.previous_view_id ?? null,
    app_id: s.appId,
    external_id: typeof input.external_id === 'string' ? input.external_id : (prev?.external_id ?? ''),
    app_installed_team_id: teamId,
    bot_id: botId,
  };
}

function exchangeTrigger(s: SlackState, triggerId: string | undefined): { trigger: Trigger } | { error: Json } {
  if (!triggerId) return { error: invalidArguments(['[ERROR] missing required field: trigger_id']) };
  const trigger = s.triggers.get(triggerId);
  if (!trigger) return { error: fail('invalid_trigger_id') };
  if (trigger.used) return { error: fail('exchanged_trigger_id') };
  if (s.expiryNow() - trigger.issuedAt > (s.opts.triggerTtlMs ?? 3000)) return { error: fail('expired_trigger_id') };
  trigger.used = true;
  return { trigger };
}

function viewArg(s: SlackState, args: SlackArgs, kind: 'modal' | 'home'): { view: Json } | { error: Json } {
  const v = args.view;
  if (v === undefined) return { error: invalidArguments(['[ERROR] missing required field: view']) };
  if (!isObj(v))
    return { error: invalidArguments(['[ERROR] failed to parse view: invalid JSON [json-pointer:/view]']) };
  const errors = viewErrors(v, kind);
  if (errors.length > 0) return { error: invalidArguments(errors) };
  if (typeof v.external_id === 'string' && v.external_id !== '') {
    const clash = [...s.viewStore.values()].find((s) => s.view.external_id === v.external_id);
    if (clash && kind === 'modal') return { error: fail('duplicate_external_id') };
  }
  return { view: v };
}

export function issueTrigger(s: SlackState, ctx: TriggerContext = {}): string {
  const id =
    ctx.triggerId ??
    `${Math.floor(Date.now() / 1000)}${Math.floor(Math.random() * 1000)}.${Math.floor(Math.random() * 1e12)}.${hex(16)}`;
  s.triggers.set(id, { issuedAt: s.expiryNow(), used: false, userId: ctx.userId, viewId: ctx.viewId });
  return id;
}

export function replaceView(
  s: SlackState,
  viewId: string,
  input: Record<string, unknown>,
): { ok: true; view: SlackView } | { ok: false; errors: string[] } {
  const stored = s.viewStore.get(viewId);
  if (!stored) return { ok: false, errors: [`no view ${viewId}`] };
  const errors = viewErrors(input, 'modal');
  if (errors.length > 0) return { ok: false, errors };
  stored.view = makeView(s, input, stored.view.team_id, stored.view.bot_id, stored.view);
  stored.at = Date.now();
  return { ok: true, view: clone(stored.view) };
}

export function pushView(
  s: SlackState,
  fromViewId: string,
  input: Record<string, unknown>,
): { ok: true; view: SlackView } | { ok: false; errors: string[] } {
  const from = s.viewStore.get(fromViewId);
  if (!from) return { ok: false, errors: [`no view ${fromViewId}`] };
  const errors = viewErrors(input, 'modal');
  if (errors.length > 0) return { ok: false, errors };
  const rootId = from.view.root_view_id ?? from.view.id;
  const stack = s.rootStacks.get(rootId) ?? [rootId];
  if (stack.length >= 3) return { ok: false, errors: ['push_limit_reached'] };
  const view = makeView(s, input, from.view.team_id, from.view.bot_id);
  view.root_view_id = rootId;
  view.previous_view_id = stack.at(-1) ?? null;
  stack.push(view.id);
  s.rootStacks.set(rootId, stack);
  s.viewStore.set(view.id, { view, userId: from.userId, via: 'views.push', at: Date.now() });
  return { ok: true, view: clone(view) };
}

export function viewHandlers(s: SlackState): Record<string, Handler> {
  return {
    'views.open': (args, auth) => {
      const v = viewArg(s, args, 'modal');
      if ('error' in v) return v.error;
      const t = exchangeTrigger(s, str(args, 'trigger_id') ?? str(args, 'interactivity_pointer'));
      if ('error' in t) return t.error;
      const view = makeView(s, v.view, auth.teamId, auth.botId ?? '');
      view.root_view_id = view.id;
      s.viewStore.set(view.id, { view, userId: t.trigger.userId, via: 'views.open', at: Date.now() });
      s.rootStacks.set(view.id, [view.id]);
      return { ok: true, view: clone(view) };
    },

    'views.push': (args, auth) => {
      const v = viewArg(s, args, 'modal');
      if ('error' in v) return v.error;
      const t = exchangeTrigger(s, str(args, 'trigger_id') ?? str(args, 'interactivity_pointer'));
      if ('error' in t) return t.error;
      const from = t.trigger.viewId ? s.viewStore.get(t.trigger.viewId) : undefined;
      const rootId = from?.view.root_view_id ?? from?.view.id;
      const stack = rootId ? (s.rootStacks.get(rootId) ?? [rootId]) : [];
      if (stack.length >= 3) return fail('push_limit_reached');
      const view = makeView(s, v.view, auth.teamId, auth.botId ?? '');
      view.root_view_id = rootId ?? view.id;
      view.previous_view_id = stack.at(-1) ?? null;
      stack.push(view.id);
      s.rootStacks.set(view.root_view_id, stack);
      s.viewStore.set(view.id, { view, userId: t.trigger.userId, via: 'views.push', at: Date.now() });
      return { ok: true, view: clone(view) };
    },

    'views.update': (args, auth) => {
      const viewId = str(args, 'view_id');
      const externalId = str(args, 'external_id');
      if (!viewId && !externalId) return invalidArguments(['[ERROR] either view_id or external_id is required']);
      const stored = viewId
        ? s.viewStore.get(viewId)
        : [...s.viewStore.values()].find((s) => s.view.external_id === externalId);
      if (!stored) return fail('not_found');
      const input = args.view;
      if (!isObj(input)) return invalidArguments(['[ERROR] missing required field: view']);
      const errors = viewErrors(input, stored.view.type === 'home' ? 'home' : 'modal');
      if (errors.length > 0) return invalidArguments(errors);
      const hash = str(args, 'hash');
      if (hash !== undefined && hash !== stored.view.hash) return fail('hash_conflict');
      stored.view = makeView(s, input, auth.teamId, auth.botId ?? '', stored.view);
      stored.at = Date.now();
      return { ok: true, view: clone(stored.view) };
    },

    'views.publish': (args, auth) => {
      const userId = str(args, 'user_id');
      if (!userId) return invalidArguments(['[ERROR] missing required field: user_id']);
      if (!s.users.has(userId) && !/^[UW][A-Z0-9]{8,}$/.test(userId)) return fail('user_not_found');
      const v = viewArg(s, args, 'home');
      if ('error' in v) return v.error;
      const existing = [...s.viewStore.values()].find((s) => s.via === 'views.publish' && s.userId === userId);
      const hash = str(args, 'hash');
      if (existing && hash !== undefined && hash !== existing.view.hash) return fail('hash_conflict');
      const view = makeView(s, v.view, auth.teamId, auth.botId ?? '', existing?.view);
      s.viewStore.set(view.id, { view, userId, via: 'views.publish', at: Date.now() });
      return { ok: true, view: clone(view) };
    },
  };
}
