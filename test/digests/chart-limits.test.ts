/**
 * A chart cannot hang the bot: a day whose figures no account could have (a total jumping by 1.7e308 between
 * two snapshots) is charted as a gap, the chart is drawn in a worker thread off the event loop, and a worker
 * past its time limit is ended — the digest then says its chart could not be attached.
 */
import { describe, expect, it } from 'vitest';
import { renderChart } from '../../src/digests/chart.js';
import type { ChartInput } from '../../src/digests/chart-data.js';
import { TEAM_ID, harnessesPerTest, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { run } from '../events/support.js';

const redis = await requireRedis();
const CHANNEL = 'C0DIGEST03';
const DAY_MS = 86_400_000;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const BOUNDS = { keepMs: 45 * DAY_MS, max: 400 };

const started = harnessesPerTest();

/** The dashboard's Outbound totals, as a snapshot of them (half the calls connected). */
const totals = (calls: number) => ({
  Outbound: { calls, durationMs: 60_000, connected: calls / 2, bookings: 0 },
});

describe('charts that cannot hang the bot', () => {
  it('charts a day whose calls jumped by 1.7e308 as a gap, drawn off the event loop within its time limit', async () => {
    const clock = { now: Date.UTC(2024, 2, 16, 10) };
    const h = await started({ ...storeOn('redis', redis, `${redis.prefix}limits:`), bot: { now: () => clock.now } });
    await run(h, 'digest daily * at 09:00 tz UTC', { channelId: CHANNEL });
    // Midnight snapshots of 2–16 March: 100 calls a day, but on 10 March the total jumps by 1.7e308.
    let calls = 1_000;
    for (let day = 2; day <= 16; day++) {
      await h.bot.deps.store.reports.addSnapshot(
        TEAM_ID,
        { at: Date.UTC(2024, 2, day), totals: totals(calls) },
        BOUNDS,
      );
      calls += day === 10 ? 1.7e308 : 100;
    }

    // The event loop's longest stall while the chart is made: a chart drawn on it would show here.
    let worstLagMs = 0;
    let last = performance.now();
    const probe = setInterval(() => {
      const now = performance.now();
      worstLagMs = Math.max(worstLagMs, now - last - 10);
      last = now;
    }, 10);
    const rssBefore = process.memoryUsage().rss;
    const askedAt = performance.now();
    try {
      await run(h, 'digest now', { channelId: CHANNEL });
    } finally {
      clearInterval(probe);
    }
    const tookMs = performance.now() - askedAt;
    const rssMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;

    const [upload] = h.slack.uploads.filter((u) => u.channel_id === CHANNEL && u.filename.endsWith('.png'));
    expect(upload?.data.subarray(0, 4).equals(PNG_MAGIC)).toBe(true);
    // 2–9 March, 100 calls each; 10 March (the jump) a gap; 11–15 March 0 calls each (1.7e308 + 100 is 1.7e308
    // in floating point: believable, so drawn).
    expect(h.slack.file(upload!.file_id)?.file.alt_txt).toContain(
      'Calls per day, Mar 2 to Mar 15 (UTC): 800 calls over the 13 days with figures.',
    );
    const renderMs = /"renderMs":(\d+)/.exec(h.logs())?.[1];
    console.info(
      `[chart limits] 1.7e308 day: digest now ${Math.round(tookMs)} ms (chart ${renderMs} ms), RSS ${rssMb.toFixed(1)} MB more, worst event-loop stall ${Math.round(worstLagMs)} ms`,
    );
    // Drawn, not refused: within the worker's time limit (≈ 1.3–1.9 s here, most of it loading the libraries).
    expect(Number(renderMs)).toBeLessThan(5_000);
    expect(rssMb).toBeLessThan(100);
  });

  it('draws 10,000 points within 3 s, and ends a worker past its time limit', async () => {
    const days = Array.from({ length: 10_000 }, (_, i) => ({ label: `d${i}`, calls: i % 500, rate: (i % 100) / 100 }));
    const months = Array.from({ length: 12 }, (_, i) => ({ label: `m${i}`, usedHours: i * 10, allowanceHours: 200 }));
    const input: ChartInput = { timeZone: 'UTC', days, months };
    const started = performance.now();
    const png = await renderChart(input);
    const tookMs = performance.now() - started;
    console.info(`[chart limits] 10,000 points: ${Math.round(tookMs)} ms, ${png.length} bytes`);
    expect(png.subarray(0, 4).equals(PNG_MAGIC)).toBe(true);
    expect(tookMs).toBeLessThan(3_000);

    await expect(renderChart(input, { timeoutMs: 50, maxHeapMb: 96 })).rejects.toThrow(
      'the chart took longer than 50 ms: its worker was ended',
    );
    // The next chart is drawn as usual.
    expect((await renderChart(input)).subarray(0, 4).equals(PNG_MAGIC)).toBe(true);
  });
});
