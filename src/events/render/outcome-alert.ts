/**
 * An outcome alert's post (`/campaign alert`): while the incident lasts, the window's figures in words ("6 of 12
 * calls failed (50 %) in the last 15 min") with whom the alert mentions; once it is over, the same post says
 * how it ended, and the reply in its thread gives the figures that ended it.
 */
import { context, escapeMrkdwn, message, section, slackDate, type MessagePayload } from '../../slack/blocks.js';
import type { AlertIncident, IncidentEnd, OutcomeAlert, RouteFilters, WindowFigures } from '../../store/index.js';
import { formatDuration } from '../filters.js';
import { mentionsOf } from '../mentions.js';
import { campaignPhrase } from '../subscription-text.js';

/** Percent of the window's calls that matched, rounded as shown. */
export function sharePercent(f: WindowFigures): number {
  return f.calls === 0 ? 0 : Math.round((f.matched * 100) / f.calls);
}

/** "6 of 12 calls failed (50 %) in the last 15 min". */
function figuresText(alert: OutcomeAlert, f: WindowFigures): string {
  return `${f.matched} of ${f.calls} call${f.calls === 1 ? '' : 's'} ${outcomePhrase(alert.filters)} (${sharePercent(f)} %) in the last ${spanText(alert.windowMs)}`;
}

/** The top-level post of an open incident. */
export function renderIncident(incident: AlertIncident, now: number): MessagePayload {
  const alert = incident.alert;
  const who = mentionsOf(alert.notify);
  // Fewer calls than the alert needs (its terms changed, calls slowed down): the incident holds, and says why.
  const few = incident.shown.calls < alert.minCalls ? ` — too few calls to judge (it takes ${alert.minCalls})` : '';
  const figures = `${figuresText(alert, incident.shown)}${few}`;
  const where = campaignPhrase(alert.campaignId);
  return message(`${who ? `${who} ` : ''}🚨 ${figures} — ${where}`, [
    section(`🚨 ${who ? `${who} ` : ''}*${figures}* — ${where}`),
    context(
      `${ruleText(alert)} · open since ${clock(incident.openedAt)} · peak ${incident.peakPercent} % · updated ${clock(now)} · \`/campaign alert\` lists this channel’s alerts`,
    ),
  ]);
}

/** The same post once the incident is over (no mention: nobody needs to be called for an end). */
export function renderEndedIncident(incident: AlertIncident): MessagePayload {
  const { alert } = incident;
  const end = endOf(incident);
  const at = incident.ending?.at ?? incident.updatedAt;
  const where = campaignPhrase(alert.campaignId);
  const head = {
    resolved: `✅ *Resolved:* calls that ${outcomePhrase(alert.filters)} are back under ${alert.abovePercent} % — ${where}`,
    quiet: `⏹️ *Closed:* no calls in the last ${spanText(alert.windowMs)} — ${where}`,
    removed: `🔕 *No longer followed:* the alert was removed — ${where}`,
  }[end];
  return message(head.replace(/\*/g, ''), [
    section(head),
    context(
      `${ruleText(alert)} · open from ${clock(incident.openedAt)} to ${clock(at)} (${spanText(at - incident.openedAt)}) · peak ${incident.peakPercent} % · details in the thread`,
    ),
  ]);
}

/** The reply in the incident's thread that ends it. */
export function renderEndReply(incident: AlertIncident): MessagePayload {
  const { alert } = incident;
  const end = endOf(incident);
  const removedBy = incident.ending?.by;
  const at = incident.ending?.at ?? incident.updatedAt;
  const figures = incident.ending?.figures ?? incident.shown;
  const lasted = `Open for ${spanText(at - incident.openedAt)}; peak ${incident.peakPercent} %.`;
  const text = {
    resolved: `✅ Resolved: ${figuresText(alert, figures)} — under the alert’s ${alert.abovePercent} %. ${lasted}`,
    quiet: `⏹️ No calls in the last ${spanText(alert.windowMs)}, so there is nothing left to judge: this incident is closed. ${lasted}`,
    removed: `🔕 ${removedBy ? `<@${escapeMrkdwn(removedBy)}> removed the alert` : 'The alert was removed'}: this incident is no longer followed. ${lasted}`,
  }[end];
  return message(text, [section(text)]);
}

function endOf(incident: AlertIncident): IncidentEnd {
  return incident.ending?.end ?? 'resolved';
}

/** "Alert at 50 % of at least 10 calls in 15 min". */
function ruleText(alert: OutcomeAlert): string {
  return `Alert at ${alert.abovePercent} % of at least ${alert.minCalls} calls in ${spanText(alert.windowMs)}`;
}

/** What a matching call did, in words: "failed", "were busy or failed and lasted at least 1m30s". */
export function outcomePhrase(f: RouteFilters): string {
  const parts: string[] = [];
  if (f.status) parts.push(f.status.length === 1 && f.status[0] === 'failed' ? 'failed' : `were ${or(f.status)}`);
  if (f.reason) parts.push(`ended with ${or(f.reason)}`);
  if (f.summary) parts.push(`mentioned ${or(f.summary.map((w) => `“${w.replace(/[-_]+/g, ' ')}”`))}`);
  if (f.minMs !== undefined && f.maxMs !== undefined)
    parts.push(`lasted ${formatDuration(f.minMs)} to ${formatDuration(f.maxMs)}`);
  else if (f.minMs !== undefined) parts.push(`lasted at least ${formatDuration(f.minMs)}`);
  else if (f.maxMs !== undefined) parts.push(`lasted at most ${formatDuration(f.maxMs)}`);
  if (f.type) parts.push(`were of type ${or(f.type)}`);
  if (f.agent) parts.push(`were with agent ${or(f.agent)}`);
  return parts.join(' and ') || 'matched';
}

function or(values: readonly string[]): string {
  const shown = values.map(escapeMrkdwn);
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

/** "15 min", "1 h", "1 h 30 min". */
export function spanText(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${h} h` : `${h} h ${minutes % 60} min`;
}

function clock(ms: number): string {
  return slackDate(new Date(ms).toISOString(), '{time}');
}
