/**
 * `/campaign rotate-hook` (admins): a new hook token for the workspace, for when its hook URL may have leaked
 * (deliveries are unsigned: the URL is the only secret, docs/PLATFORM-API.md). Every platform subscription the
 * workspace's routes and outcome alerts need is registered again with the new URL, then removed from the old one(s)
 * (POST …/trigger/subscribe, DELETE …/trigger/unsubscribe). The old URL keeps working for
 * HOOK_TOKEN_GRACE_S, so nothing is lost while the platform switches over; then it answers 404.
 *
 * Safe to run again: every run re-registers every hook, and old URLs whose hooks were not all removed are
 * remembered (sealed) and removed by the next run.
 */
import { ApiConnectionError, ApiError, ApiTimeoutError } from '../api/index.js';
import { hookUrlFor, SUBSCRIBABLE_TRIGGERS, unsubscribeUpstream, type SubscribableTrigger } from '../events/index.js';
import { campaignPhrase, eventList } from '../events/subscription-text.js';
import { failureOf } from '../app/failure.js';
import { noPublicUrl } from './subscribe.js';
import type { Subcommand } from './types.js';

/** One rotation at a time per workspace; long enough for many slow platform calls. */
const ROTATE_LOCK_MS = 5 * 60_000;
/** Failures listed one per line; the rest are counted. */
const LISTED_FAILURES = 10;

interface Hook {
  campaignId: string;
  triggerName: SubscribableTrigger;
}

interface Failure {
  hook: Hook;
  err: unknown;
}

export const rotateHook: Subcommand = {
  name: 'rotate-hook',
  usage: 'rotate-hook',
  summary: 'give this workspace a new webhook URL and move every platform hook to it (if the old one may have leaked)',
  admin: true,
  destructive: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const { deps, teamId } = ctx;
    const publicUrl = deps.config.publicUrl;
    if (!publicUrl) return ctx.tell(`${noPublicUrl('Rotating the hook URL')} Nothing was changed.`);
    // Before anything changes: a workspace that is not connected gets told so, with its token untouched.
    const api = await deps.platform.clientFor(teamId);

    const lock = deps.store.keys.dedup(teamId, 'hook-token-rotate');
    if (!(await deps.store.kv.set(lock, '1', { ttlMs: ROTATE_LOCK_MS, onlyIfAbsent: true }))) {
      return ctx.tell(
        'The hook URL of this workspace is being rotated right now (by another admin?) — wait a minute, then check with `/campaign subscriptions`.',
      );
    }
    try {
      // The routes' hooks, and the `call_completed` hooks outcome alerts count from.
      const hooks = hooksOf([
        ...(await deps.store.routes.listForTeam(teamId)),
        ...(await deps.store.outcomeAlerts.hooks(teamId)),
      ]);
      const graceS = deps.config.hooks.tokenGraceS;
      const { token, retired } = await deps.store.workspaces.rotateHookToken(teamId, graceS * 1000);
      for (const secret of [token, ...retired.map((r) => r.token)]) deps.redactor.addSecret(secret);
      const hookUrl = hookUrlFor(publicUrl, token);

      const notMoved: Failure[] = [];
      const notRemoved: Failure[] = [];
      const stillRegistered = new Set<string>();
      for (const hook of hooks) {
        try {
          await api.webhooks.subscribe({ hookUrl, ...hook });
        } catch (err) {
          // The old URL keeps delivering this one (until its grace ends): it is not removed there.
          notMoved.push({ hook, err });
          for (const old of retired) stillRegistered.add(old.token);
          continue;
        }
        for (const old of retired) {
          try {
            await unsubscribeUpstream(api, hookUrlFor(publicUrl, old.token), hook, ctx.logger);
          } catch (err) {
            notRemoved.push({ hook, err });
            stillRegistered.add(old.token);
          }
        }
      }
      await deps.store.workspaces.markRetiredCleared(
        teamId,
        retired.map((r) => r.token).filter((t) => !stillRegistered.has(t)),
      );
      ctx.logger.info(
        {
          hooks: hooks.length,
          moved: hooks.length - notMoved.length,
          notMoved: notMoved.length,
          notRemoved: notRemoved.length,
          oldUrls: retired.length,
        },
        'hook token rotated',
      );
      for (const f of [...notMoved, ...notRemoved])
        ctx.logger.warn({ err: f.err, ...f.hook }, 'hook rotation: a platform call failed');
      await ctx.tell(answer(hooks.length, notMoved, notRemoved, retired.length, graceS));
    } finally {
      await deps.store.kv.del(lock).catch(() => undefined);
    }
  },
};

/** The platform subscriptions the routes need: one per (campaign or `*`, event), whichever channels share it. */
function hooksOf(routes: ReadonlyArray<{ campaignId: string; triggerName: string }>): Hook[] {
  const hooks = new Map<string, Hook>();
  for (const r of routes) {
    const triggerName = SUBSCRIBABLE_TRIGGERS.find((t) => t === r.triggerName);
    if (triggerName) hooks.set(JSON.stringify([r.campaignId, triggerName]), { campaignId: r.campaignId, triggerName });
  }
  return [...hooks.values()];
}

/** `oldUrls`: how many earlier URLs hooks were removed from (the one just replaced, and any left by an earlier run). */
function answer(
  total: number,
  notMoved: readonly Failure[],
  notRemoved: readonly Failure[],
  oldUrls: number,
  graceS: number,
): string {
  const lines = ['🔁 This workspace has a new hook URL (it is never shown: only the platform needs it).'];
  const moved = total - notMoved.length;
  const from =
    oldUrls === 0
      ? ''
      : oldUrls === 1
        ? ' and removed them from the old one'
        : ` and removed them from the ${oldUrls} old ones`;
  if (total === 0) lines.push('No channel is subscribed to events, so there was no platform hook to move.');
  else if (notMoved.length === 0) lines.push(`Re-registered ${hookCount(total)} with the new URL${from}.`);
  else
    lines.push(
      `Re-registered ${moved} of ${hookCount(total)} with the new URL. Not re-registered (the old URL still gets these):`,
      ...list(notMoved),
    );
  if (notRemoved.length > 0) {
    lines.push(
      `Could not remove ${hookCount(notRemoved.length)} from the old URL (the platform may keep sending there; once the old URL stops working those deliveries are refused):`,
      ...list(notRemoved),
    );
  }
  if (oldUrls > 0) {
    lines.push(
      graceS > 0
        ? `The old URL keeps working for ${duration(graceS)}, then answers 404.`
        : 'The old URL stopped working at once.',
    );
  }
  if (notMoved.length > 0 || notRemoved.length > 0) {
    lines.push(
      'Running `/campaign rotate-hook` again is safe: it issues another URL, registers every hook with it and removes the old ones.',
    );
  }
  return lines.join('\n');
}

function list(failures: readonly Failure[]): string[] {
  const shown = failures
    .slice(0, LISTED_FAILURES)
    .map(({ hook, err }) => `• ${campaignPhrase(hook.campaignId)} · ${eventList([hook.triggerName])}: ${reason(err)}`);
  if (failures.length > LISTED_FAILURES)
    shown.push(`• …and ${failures.length - LISTED_FAILURES} more (see the app logs)`);
  return shown;
}

/** Short, with what support needs to find the request (status, the platform's code and request id) after it. */
function reason(err: unknown): string {
  if (err instanceof ApiError) {
    const { sentence, reference } = failureOf(err);
    return `${sentence} _(${reference})_`;
  }
  if (err instanceof ApiTimeoutError) return 'the platform did not answer in time';
  if (err instanceof ApiConnectionError) return 'the platform could not be reached';
  return 'something went wrong on our side (see the app logs)';
}

function hookCount(n: number): string {
  return `${n} platform hook${n === 1 ? '' : 's'}`;
}

function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
