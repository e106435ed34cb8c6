/**
 * The platform's books: what a call or a chat the simulator fires changes on the platform, so the endpoints
 * the app reads afterwards (dashboard-stats, customer-quota, bookings) say what the real platform's would.
 * A completed call adds to its campaign type's totals and its campaign's line in the top campaigns, uses the
 * month's quota for the time it was connected, and a call that booked leaves a booking. A chat with a
 * customer the account never had is one more contact. Plain functions of `PlatformState`.
 */
import type { PlatformState, QuotaRow } from './seed.js';

type Category = 'Outbound' | 'Inbound' | 'Web';

const CATEGORY_OF: Record<string, Category | undefined> = { outbound: 'Outbound', inbound: 'Inbound', web: 'Web' };

/** What the books need of a completed call (the fields of its `call_completed` event). */
export interface BookedCall {
  campaignId: string;
  callId: string;
  customerName: string;
  customerEmail: string;
  status: string;
  durationMs: number;
  endedAt: string;
  /** The call ended with an appointment booked. */
  booked: boolean;
}

/** The month a quota row is for: the latest one is this month's. */
export function currentQuotaRow(state: PlatformState): QuotaRow | undefined {
  return [...state.quota].sort((a, b) => b.CreatedAt.localeCompare(a.CreatedAt))[0];
}

/** Keeps the books of one completed call; calls of a chat (messages) campaign count nowhere on the dashboard. */
export function bookCall(state: PlatformState, call: BookedCall): void {
  const campaign = state.campaigns[call.campaignId];
  const category = campaign ? CATEGORY_OF[campaign.type] : undefined;
  const connected = call.status === 'completed';
  if (category) {
    const t = (state.stats.totals[category] ??= {
      calls: 0,
      durationMs: 0,
      connectionRate: 0,
      successCalls: 0,
      bookingsMade: 0,
      transfersMade: 0,
      lastCallDate: call.endedAt,
    });
    t.connectionRate = rateAfter(t.connectionRate, t.calls, connected);
    t.calls += 1;
    t.durationMs += call.durationMs;
    if (connected) t.successCalls += 1;
    if (call.booked) t.bookingsMade += 1;
    t.lastCallDate = call.endedAt;
    const top = state.stats.topCampaigns;
    let line = top.find((c) => c.campaignId === call.campaignId);
    if (!line) {
      line = { campaignId: call.campaignId, calls: 0, connectionRate: 0 };
      top.push(line);
    }
    line.connectionRate = rateAfter(line.connectionRate, line.calls, connected);
    line.calls += 1;
    top.sort((a, b) => b.calls - a.calls);
  }
  state.callDurations[call.callId] = call.durationMs;
  const month = currentQuotaRow(state);
  if (month && connected && call.durationMs > 0) {
    month.TotalUsageMs = String(BigInt(month.TotalUsageMs) + BigInt(Math.round(call.durationMs)));
    month.Timestamp = call.endedAt;
  }
  if (call.booked) {
    const day = new Date(Date.parse(call.endedAt) + 4 * 86_400_000);
    day.setUTCHours(15, 0, 0, 0);
    (state.bookings[call.campaignId] ??= []).push({
      PartitionKey: call.campaignId,
      RowKey: `bk-${call.callId}`,
      Timestamp: call.endedAt,
      'odata.etag': `W/"datetime'${encodeURIComponent(call.endedAt)}'"`,
      BookingDate: day.toISOString(),
      CallId: call.callId,
      CustomerEmail: call.customerEmail,
      CustomerName: call.customerName,
      CalendarId: 'cal-main',
      Status: 'success',
    });
  }
}

/** A chat from a customer number the account has not had before: one more contact. */
export function bookChat(state: PlatformState, known: Set<string>, customerNumber: string): void {
  if (known.has(customerNumber)) return;
  known.add(customerNumber);
  state.stats.elements.contacts += 1;
}

function rateAfter(rate: number, calls: number, connected: boolean): number {
  return (rate * calls + (connected ? 1 : 0)) / (calls + 1);
}

/**
 * The dashboard's totals as they stood at each of the `days` local midnights before `today`, going back from
 * today's by a believable day's calls (weekends quieter): what a bot running for those days would have
 * snapshotted. Oldest first.
 */
export function dashboardHistory(
  state: PlatformState,
  today: Date,
  days: number,
): Array<{ at: number; totals: PlatformState['stats']['totals'] }> {
  const out: Array<{ at: number; totals: PlatformState['stats']['totals'] }> = [];
  const midnight = new Date(today);
  midnight.setHours(0, 0, 0, 0);
  let totals = structuredClone(state.stats.totals);
  for (let back = 0; back < days; back += 1) {
    const at = midnight.getTime() - back * 86_400_000;
    out.push({ at, totals: structuredClone(totals) });
    // The day before `at`: its calls taken off, so the day before that has fewer.
    const weekday = new Date(at - 86_400_000).getDay();
    const quiet = weekday === 0 || weekday === 6 ? 0.35 : 1;
    const wobble = 0.8 + ((back * 37) % 40) / 100;
    totals = structuredClone(totals);
    for (const [name, perDay] of [
      ['Outbound', 42],
      ['Inbound', 14],
      ['Web', 3],
    ] as const) {
      const t = totals[name];
      if (!t) continue;
      const calls = Math.min(t.calls, Math.round(perDay * quiet * wobble));
      const share = t.calls > 0 ? calls / t.calls : 0;
      // The day's connected share varies a little around the account's; the running rate follows from it.
      const connectedBefore = t.connectionRate * t.calls;
      const dayRate = Math.min(1, Math.max(0, t.connectionRate + (((back * 13) % 9) - 4) / 50));
      const connected = Math.min(connectedBefore, Math.round(calls * dayRate));
      t.calls -= calls;
      t.connectionRate = t.calls > 0 ? Math.round(((connectedBefore - connected) / t.calls) * 10_000) / 10_000 : 0;
      t.durationMs = Math.round(t.durationMs * (1 - share));
      t.bookingsMade = Math.max(0, t.bookingsMade - Math.round(t.bookingsMade * share));
      t.successCalls = Math.max(0, t.successCalls - Math.round(t.successCalls * share));
    }
  }
  return out.reverse();
}
