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
 * - The incident (its post, the figures shown, how it ends) is kept in the store, so a restart, or another
 *   replica's firing, carries on with the same post. Each step of an ending is recorded before the next, so a
 *   retried firing replies once. One window is left, as for every Slack post: a crash between Slack's answer to
 *   the opening post and the write of its ts would post a second one.
 */
import type { Logger } from '../logger.js';
import { postMessage, slackErrorCode } from '../slack/post.js';
import {
  ALL_CAMPAIGNS,
  type AlertIncident,
  type AlertRef,
  type DueTimer,
  type OutcomeAlert,
  type Store,
  type WindowFigures,
} from '../store/index.js';
import type { CallCompleted } from './events.js';
import { matchesFilters } from './filters.js';
import { isChannelGone } from '../delivery/channel-pause.js';
import type { PostingKit } from '../delivery/post-context.js';
import { renderEndReply, renderEndedIncident, renderIncident, sharePercent } from './render/outcome-alert.js';

export const ALERT_TIMER = 'outcome-alert';
/** How often an alert's window is judged (and so, at most, how often its post is updated). */
export const EVALUATE_EVERY_MS = 30_000;
/** A firing Slack could not take (budget, 429, Slack down) is tried again this soon at the earliest. */
const MIN_RETRY_MS = 1_000;

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
  constructor(private readonly kit: PostingKit) {}

  /** The `outcome-alert` timer: judge the window; returns when to judge it again (undefined: the alert is gone). */
  async fire(timer: DueTimer, now: number): Promise<number | undefined> {
    const ref = parseAlertTimerId(timer.id);
    if (!ref) return undefined;
    const { teamId } = ref;
    const store = this.kit.store;
    const log = this.kit.logger.child({
      timer: ALERT_TIMER,
      team: teamId,
      channel: ref.channelId,
      campaignId: ref.campaignId,
    });
    const [alert, incident] = await Promise.all([
      store.outcomeAlerts.get(teamId, ref),
      store.outcomeAlerts.incident(teamId, ref),
    ]);
    if (!alert && !incident) return undefined;
    // The bot cannot post there until someone acts: the window keeps counting, nothing is posted.
    if (await this.kit.pauses.reasonFor(teamId, ref.channelId)) return now + EVALUATE_EVERY_MS;
    try {
      if (alert) await this.step(teamId, alert, incident, now, log);
      // Removed while an incident was open (`/campaign alert off` records the end): say so, then stop.
      else if (incident)
        await this.finish(teamId, incident.ending ? incident : ending(incident, 'removed', incident.shown, now), log);
    } catch (err) {
      const heals = this.kit.pace.retryDelayMs(err);
      if (heals !== undefined) return now + Math.max(MIN_RETRY_MS, heals);
      const code = slackErrorCode(err);
      if (!isChannelGone(code)) throw err;
      // Its subscriber is told once; the alert posts again once the bot is back and the channel resumed.
      await this.kit.pauses.pause(teamId, ref.channelId, code);
      // A removed alert's incident cannot be told there any more: it is forgotten with the alert.
      if (!alert) await store.outcomeAlerts.endIncident(teamId, ref);
    }
    return alert ? now + EVALUATE_EVERY_MS : undefined;
  }

  private async step(
    teamId: string,
    alert: OutcomeAlert,
    incident: AlertIncident | undefined,
    now: number,
    log: Logger,
  ): Promise<void> {
    const store = this.kit.store;
    if (incident?.ending) return this.finish(teamId, incident, log);
    const f = await store.outcomeAlerts.window(teamId, alert, now);
    const verdict = judge(alert, f, incident !== undefined, now);
    if (verdict === 'open') {
      const opening: AlertIncident = {
        alert,
        ts: '-',
        openedAt: now,
        shown: f,
        updatedAt: now,
        peakPercent: sharePercent(f),
      };
      const slack = await this.kit.slack(teamId);
      const ts = await postMessage(slack, { channel: alert.channelId }, renderIncident(opening, now));
      await store.outcomeAlerts.setIncident(teamId, alert, { ...opening, ts });
      log.info({ calls: f.calls, matched: f.matched, percent: sharePercent(f) }, 'outcome alert: incident opened');
      return;
    }
    if (!incident || verdict === 'hold') {
      if (incident) await this.show(teamId, alert, incident, f, now);
      return;
    }
    const ended = ending({ ...incident, alert }, verdict, f, now);
    await store.outcomeAlerts.setIncident(teamId, alert, ended);
    await this.finish(teamId, ended, log);
  }

  /** Updates the incident's post when its figures changed (the alert's terms may have changed too). */
  private async show(
    teamId: string,
    alert: OutcomeAlert,
    incident: AlertIncident,
    f: WindowFigures,
    now: number,
  ): Promise<void> {
    const same = f.calls === incident.shown.calls && f.matched === incident.shown.matched;
    if (same && JSON.stringify(alert) === JSON.stringify(incident.alert)) return;
    const updated: AlertIncident = {
      ...incident,
      alert,
      shown: f,
      updatedAt: now,
      peakPercent: Math.max(incident.peakPercent, f.calls >= alert.minCalls ? sharePercent(f) : 0),
    };
    const slack = await this.kit.slack(teamId);
    await slack.chat.update({ channel: alert.channelId, ts: incident.ts, ...renderIncident(updated, now) });
    await this.kit.store.outcomeAlerts.setIncident(teamId, alert, updated);
  }

  /** Ends an incident whose end is recorded: the reply in its thread (once), then the post itself, then the record. */
  private async finish(teamId: string, incident: AlertIncident, log: Logger): Promise<void> {
    const store = this.kit.store;
    const at = incident.alert;
    const slack = await this.kit.slack(teamId);
    let current = incident;
    if (current.ending && !current.ending.replyTs) {
      const replyTs = await postMessage(
        slack,
        { channel: at.channelId, threadTs: incident.ts },
        renderEndReply(current),
      );
      current = { ...current, ending: { ...current.ending, replyTs } };
      await store.outcomeAlerts.setIncident(teamId, at, current);
    }
    try {
      await slack.chat.update({ channel: at.channelId, ts: incident.ts, ...renderEndedIncident(current) });
    } catch (err) {
      const code = slackErrorCode(err);
      // Someone deleted the post: the reply in its thread is what is left to say it.
      if (code !== 'message_not_found' && code !== 'cant_update_message') throw err;
      log.info({ slackError: code }, 'outcome alert: the incident post is gone; its end is in the thread only');
    }
    await store.outcomeAlerts.endIncident(teamId, at);
    log.info({ end: current.ending?.end, figures: current.ending?.figures }, 'outcome alert: incident over');
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
