/**
 * The platform simulator keeps its books (what the playground shows relies on it): its seed dated as of the day
 * it is given, and a simulated call or chat changing what the endpoints answer, as the real platform's would.
 * Driven with plain fetch, not our client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookCall, bookChat, dashboardHistory, startFakePlatform } from '../fakes/platform.js';
import type { FakePlatform } from '../fakes/platform.js';

const TODAY = new Date('2026-11-27T20:00:00.000Z');
let platform: FakePlatform;

beforeAll(async () => {
  platform = await startFakePlatform({ today: () => TODAY });
});
afterAll(async () => {
  await platform.close();
});

async function get(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(platform.url + path, { headers: { 'api-key': platform.apiKey } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

type Totals = Record<string, { calls: number; durationMs: number; bookingsMade: number; connectionRate: number }>;

describe('the simulator’s seed, dated today', () => {
  it('has this month’s and last month’s quota, and no date of 2024', async () => {
    const quota = (await get('/customer-quota')).value as Array<{ RowKey: string; CreatedAt: string }>;
    expect(quota.map((r) => r.RowKey)).toEqual(['2026-10', '2026-11']);
    expect(quota.at(-1)?.CreatedAt).toBe('2026-11-01T00:00:00.000Z');
    const everything = JSON.stringify([
      await get('/dashboard/dashboard-stats'),
      await get('/campaign/camp-1/bookings'),
      await get('/call/scheduled/camp-1'),
      quota,
    ]);
    expect(everything).not.toContain('2024-');
    // Scheduled calls are still ahead of today, bookings behind it.
    const scheduled = (await get('/call/scheduled/camp-1')).value as Array<{ ScheduledDate: string }>;
    for (const s of scheduled) expect(Date.parse(s.ScheduledDate)).toBeGreaterThan(TODAY.getTime());
  });

  it('is the 8 March 2024 seed without a day given (what the other tests rely on)', async () => {
    const plain = await startFakePlatform();
    try {
      expect(plain.state.quota.map((r) => r.RowKey)).toEqual(['2024-02', '2024-03']);
    } finally {
      await plain.close();
    }
  });
});

describe('the books', () => {
  it('a booked outbound call adds to the totals, the top campaigns, the month’s usage and the bookings', async () => {
    const before = structuredClone(((await get('/dashboard/dashboard-stats')).totals as Totals).Outbound!);
    const usedBefore = BigInt(platform.state.quota.at(-1)!.TotalUsageMs);
    bookCall(platform.state, {
      campaignId: 'camp-1',
      callId: 'call-books-1',
      customerName: 'Bea Booked',
      customerEmail: 'bea@example.com',
      status: 'completed',
      durationMs: 90_000,
      endedAt: TODAY.toISOString(),
      booked: true,
    });
    const stats = await get('/dashboard/dashboard-stats');
    const after = (stats.totals as Totals).Outbound!;
    expect(after.calls).toBe(before.calls + 1);
    expect(after.durationMs).toBe(before.durationMs + 90_000);
    expect(after.bookingsMade).toBe(before.bookingsMade + 1);
    expect(after.connectionRate).toBeGreaterThan(before.connectionRate);
    expect((stats.topCampaigns as Array<{ campaignId: string; calls: number }>)[0]).toEqual(
      expect.objectContaining({ campaignId: 'camp-1', calls: 1285 }),
    );
    const quota = (await get('/customer-quota')).value as Array<{ TotalUsageMs: string }>;
    expect(BigInt(quota.at(-1)!.TotalUsageMs)).toBe(usedBefore + 90_000n);
    const bookings = (await get('/campaign/camp-1/bookings')).value as Array<{ CustomerName: string; Status: string }>;
    expect(bookings).toContainEqual(expect.objectContaining({ CustomerName: 'Bea Booked', Status: 'success' }));
  });

  it('a call nobody answered counts, uses no quota and books nothing', async () => {
    const usedBefore = BigInt(platform.state.quota.at(-1)!.TotalUsageMs);
    const bookingsBefore = platform.state.bookings['camp-2']?.length ?? 0;
    const before = ((await get('/dashboard/dashboard-stats')).totals as Totals).Inbound!;
    bookCall(platform.state, {
      campaignId: 'camp-2',
      callId: 'call-books-2',
      customerName: 'Nia Noanswer',
      customerEmail: 'nia@example.com',
      status: 'no-answer',
      durationMs: 25_000,
      endedAt: TODAY.toISOString(),
      booked: false,
    });
    const after = ((await get('/dashboard/dashboard-stats')).totals as Totals).Inbound!;
    expect(after.calls).toBe(before.calls + 1);
    expect(after.connectionRate).toBeLessThan(before.connectionRate);
    expect(BigInt(platform.state.quota.at(-1)!.TotalUsageMs)).toBe(usedBefore);
    expect(platform.state.bookings['camp-2']?.length ?? 0).toBe(bookingsBefore);
  });

  it('a chat from a new customer is one more contact, the same customer again none', async () => {
    const known = new Set<string>();
    const contacts = platform.state.stats.elements.contacts;
    bookChat(platform.state, known, '+14155550161');
    bookChat(platform.state, known, '+14155550161');
    const stats = await get('/dashboard/dashboard-stats');
    expect((stats.elements as { contacts: number }).contacts).toBe(contacts + 1);
  });

  it('two weeks of history end at today’s totals and only ever grow', () => {
    const days = dashboardHistory(platform.state, TODAY, 14);
    expect(days).toHaveLength(14);
    const last = days.at(-1)!;
    expect(last.totals.Outbound?.calls).toBe(platform.state.stats.totals.Outbound?.calls);
    for (let i = 1; i < days.length; i += 1) {
      const [a, b] = [days[i - 1]!.totals.Outbound!, days[i]!.totals.Outbound!];
      expect(b.calls).toBeGreaterThan(a.calls);
      expect(days[i]!.at - days[i - 1]!.at).toBeGreaterThanOrEqual(23 * 3_600_000);
      // Connected calls never go down from one day to the next.
      expect(b.connectionRate * b.calls).toBeGreaterThanOrEqual(a.connectionRate * a.calls - 0.5);
    }
  });
});
