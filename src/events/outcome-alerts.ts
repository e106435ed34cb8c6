/**
 * Outcome alerts (`/campaign alert`): the share of a campaign's completed calls that match the alert's filters,
 * over a sliding window, and one post per incident.
 *
 * - Counting: every `call_completed` the worker handles is counted in the workspace's alerts of its campaign
 *   (and `*`), whether or not a channel also routes its card: an alert is about the campaign's calls. Counted
 *   once per call (`OutcomeAlertRepo.count`), in the store, so every replica counts into one window.
 * - Judging: one `outcome-alert` timer per alert fires every EVALUATE_EVERY_MS on one replica (the store's timers
 *   claim each firing). With at least `minCalls` calls in the window and a share at or above the threshold, an
 *   incident opens: one top-level post, mentioning whom the alert names. While it lasts the post is updated when
 *   its figures change (at most once a firing: Tier 3 `chat.update` stays far under its budget). Once the share
 *   is under the threshold again (with at least `minCalls` calls), it is resolved in the post's thread and the
 *   post says so; a whole window without calls closes it too. Fewer calls than `minCalls` never open nor
 *   resolve anything.
 * - Posting: the timer only judges and records — the incident, the figures it shows, how it ends — in the store,
 *   and leaves the alert in its channel's outbox (bulk lane, one waiting item per incident), where the one
 *   scheduler makes Slack show what the record says, at Slack's pace and judged as every other post. The
 *   opening post and the reply that ends it carry an idempotency key (src/delivery/idempotent-posts.ts): an opening
 *   whose answer was lost is looked up, never posted again — the incident is recorded before its post.
 */
import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import {
  ALL_CAMPAIGNS,
  type AlertIncident,
  type AlertRef,
  type ChannelRef,
  type DueTimer,
  type OutcomeAlert,
  type Store,
  type WindowFigures,
} from '../store/index.js';
import type { CallCompleted } from './events.js';
import { matchesFilters } from './filters.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';
import type { IdempotentPosts } from '../delivery/idempotent-posts.js';
import type { PostContext } from '../delivery/post-context.js';
import { updateMessage } from '../slack/post.js';
import { renderEndReply, renderEndedIncident, renderIncident, sharePercent } from './render/outcome-alert.js';

export const ALERT_TIMER = 'outcome-alert';
/** How often an alert's window is judged (and so, at most, how often its post is updated). */
export const EVALUATE_EVERY_MS = 30_000;
/** The bulk-lane kind of an incident's posts. */
const ALERT_POST = 'outcome-alert';
/** How long an incident post's once-mark is kept: longer than an incident waits for its channel. */
const POST_MARK_TTL_MS = 40 * 24 * 60 * 60_000;

/** Timer ids name the workspace, channel and campaign (JSON: unambiguous whatever the ids hold). */
export function alertTimerId(teamId: string, at: AlertRef): string {
  return JSON.stringify([teamId, at.channelId, at.campaignId]);
}

function parseAlertTimerId(id: string): ({ teamId: string } & AlertRef) | undefined {
  try {
    const value: unknown = JSON.parse(id);
    if (Array.isArray(value) && value.length === 3 && value.every((v) => typeof v === 'string')) {
      const [teamId, channelId, campaignId] = value as [string, string, string];
      return { teamId, channelId, campaignId };
    }
  } catch {
    // not one of ours
  }
  return undefined;
}

/**
 * Counts a completed call in the workspace's alerts of its campaign (and `*`). `callKey` is the same for every
 * try of the event; an event queued longer ago than an alert's window is not counted in it.
 */
export async function countCompletedCall(
  store: Store,
  teamId: string,
  call: CallCompleted,
  callKey: string,
  enqueuedAt: number,
): Promise<void> {
  const alerts = (await store.outcomeAlerts.list(teamId)).filter(
    (a) =>
      (a.campaignId === ALL_CAMPAIGNS || a.campaignId === call.campaignId) && Date.now() - enqueuedAt <= a.windowMs,
  );
  if (alerts.length === 0) return;
  const event = { known: true, trigger: 'call_completed', data: call } as const;
  await store.outcomeAlerts.count(
    teamId,
    callKey,
    alerts.map((alert) => ({ alert, matched: matchesFilters(alert.filters, event) })),
    store.now(),
  );
}

type Verdict = 'open' | 'resolved' | 'quiet' | 'hold';

/** What the window says, for an alert with (or without) an open incident. */
function judge(alert: OutcomeAlert, f: WindowFigures, open: boolean, now: number): Verdict {
  const enough = f.calls >= alert.minCalls;
  const over = enough && f.matched * 100 >= alert.abovePercent * f.calls;
  if (!open) return over ? 'open' : 'hold';
  if (enough && !over) return 'resolved';
  // No call in a whole window counted under the alert's current terms: nothing left to judge.
  if (f.calls === 0 && now - alert.setAt >= alert.windowMs) return 'quiet';
  return 'hold';
}

export class OutcomeAlerts {
  constructor(
    private readonly context: PostContext,
    private readonly bulk: BulkPosts,
    private readonly posts: IdempotentPosts,
  ) {
    bulk.on(ALERT_POST, {
      post: (at, body, slack) => this.post(at, body as AlertRef, slack.client),
      gaveUp: (at, body) => this.gaveUp(at, body as AlertRef),
    });
  }

  /** The `outcome-alert` timer: judge the window; returns when to judge it again (undefined: the alert is gone). */
  async fire(timer: DueTimer, now: number): Promise<number | undefined> {
    const ref = parseAlertTimerId(timer.id);
    if (!ref) return undefined;
    const { teamId } = ref;
    const store = this.context.store;
    const [alert, incident] = await Promise.all([
      store.outcomeAlerts.get(teamId, ref),
      store.outcomeAlerts.incident(teamId, ref),
    ]);
    let record = incident;
    if (alert && !incident?.ending) record = await this.judge(teamId, alert, incident, now);
    // Removed while an incident was open (`/campaign alert off` records the end): it is said, then the timer stops.
    else if (!alert && incident && !incident.ending) {
      record = ending(incident, 'removed', incident.shown, now);
      await store.outcomeAlerts.setIncident(teamId, ref, record);
    }
    // Slack does not show the record yet. One waiting item per incident: it posts whatever the record says by then.
    if (record && (!record.ts || record.ending || record.postedAt !== record.updatedAt))
      await this.bulk.add({ teamId, channelId: ref.channelId }, ALERT_POST, { key: timer.id, order: record.openedAt }, {
        channelId: ref.channelId,
        campaignId: ref.campaignId,
      } satisfies AlertRef);
    return alert ? now + EVALUATE_EVERY_MS : undefined;
  }

  /** Judges the window and records what it says: the incident as it is now (undefined: none). */
  private async judge(
    teamId: string,
    alert: OutcomeAlert,
    incident: AlertIncident | undefined,
    now: number,
  ): Promise<AlertIncident | undefined> {
    const store = this.context.store;
    const f = await store.outcomeAlerts.window(teamId, alert, now);
    const verdict = judge(alert, f, incident !== undefined, now);
    let record: AlertIncident | undefined;
    if (verdict === 'open') {
      record = { alert, openedAt: now, shown: f, updatedAt: now, peakPercent: sharePercent(f) };
      this.context.logger.info(
        { team: teamId, channel: alert.channelId, campaignId: alert.campaignId, calls: f.calls, matched: f.matched },
        'outcome alert: incident opened',
      );
    } else if (!incident) return undefined;
    else if (verdict !== 'hold') record = ending({ ...incident, alert }, verdict, f, now);
    else if (f.calls === incident.shown.calls && f.matched === incident.shown.matched) {
      // Figures unchanged, and the alert's terms too: nothing to show.
      if (JSON.stringify(alert) === JSON.stringify(incident.alert)) return incident;
    }
    record ??= {
      ...incident!,
      alert,
      shown: f,
      updatedAt: now,
      peakPercent: Math.max(incident!.peakPercent, f.calls >= alert.minCalls ? sharePercent(f) : 0),
    };
    await store.outcomeAlerts.setIncident(teamId, alert, record);
    return record;
  }

  /** The alert's turn in its channel: Slack is made to show the incident as recorded (the opening, an update, its end). */
  private async post(at: ChannelRef, ref: AlertRef, slack: WebClient): Promise<void> {
    const store = this.context.store;
    let current = await store.outcomeAlerts.incident(at.teamId, ref);
    if (!current) return;
    if (!current.ts) {
      const ts = await this.posts.post(
        slack,
        { channel: ref.channelId },
        renderIncident(current, current.updatedAt),
        this.once(at.teamId, current, 'open'),
      );
      current = await this.record(at.teamId, ref, { ts, postedAt: current.updatedAt });
      if (!current?.ts) return;
    }
    const { ts } = current;
    if (current.ending) {
      if (!current.ending.replyTs) {
        const replyTs = await this.posts.post(
          slack,
          { channel: ref.channelId, threadTs: ts },
          renderEndReply(current),
          this.once(at.teamId, current, 'end'),
        );
        current = { ...current, ending: { ...current.ending, replyTs } };
        await store.outcomeAlerts.setIncident(at.teamId, ref, current);
      }
      await updateMessage(slack, { channel: ref.channelId, ts }, renderEndedIncident(current));
      await store.outcomeAlerts.endIncident(at.teamId, ref);
      this.context.logger.info(
        { team: at.teamId, channel: ref.channelId, end: current.ending?.end, figures: current.ending?.figures },
        'outcome alert: incident over',
      );
      return;
    }
    if (current.postedAt === current.updatedAt) return;
    await updateMessage(slack, { channel: ref.channelId, ts }, renderIncident(current, current.updatedAt));
    await this.record(at.teamId, ref, { postedAt: current.updatedAt });
  }

  /**
   * What Slack now shows, written into the incident as it is now (the timer may have changed it meanwhile: a
   * newer update stays behind, and is posted in the alert's next turn).
   */
  private async record(
    teamId: string,
    ref: AlertRef,
    shown: Pick<AlertIncident, 'ts' | 'postedAt'>,
  ): Promise<AlertIncident | undefined> {
    const latest = await this.context.store.outcomeAlerts.incident(teamId, ref);
    if (!latest) return undefined;
    const next = { ...latest, ...shown };
    await this.context.store.outcomeAlerts.setIncident(teamId, ref, next);
    return next;
  }

  /**
   * Slack will not take the incident's post (the post was deleted, the channel gone for a day): an ended
   * incident is forgotten — its end is in the thread, or nowhere — and an open one waits for its next change.
   */
  private async gaveUp(at: ChannelRef, ref: AlertRef): Promise<void> {
    const incident = await this.context.store.outcomeAlerts.incident(at.teamId, ref);
    if (!incident) return;
    if (incident.ending) await this.context.store.outcomeAlerts.endIncident(at.teamId, ref);
    else await this.record(at.teamId, ref, { postedAt: incident.updatedAt });
  }

  private once(teamId: string, incident: AlertIncident, step: 'open' | 'end') {
    const id = `${incident.alert.channelId}:${incident.alert.campaignId}:${incident.openedAt}:${step}`;
    return {
      teamId,
      mark: this.context.store.keys.dedup(teamId, 'alert-post', id),
      key: createHash('sha256').update(`alert:${id}`).digest('base64url').slice(0, 22),
      ttlMs: POST_MARK_TTL_MS,
    };
  }
}

/** The incident with its end recorded. */
export function ending(
  incident: AlertIncident,
  end: 'resolved' | 'quiet' | 'removed',
  figures: WindowFigures,
  at: number,
  by?: string,
): AlertIncident {
  return { ...incident, ending: { end, figures, at, ...(by ? { by } : {}) } };
}
