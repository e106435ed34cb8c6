/**
 * The catalog's cost where it runs most: on every webhook event (the worker records the campaign and agent it
 * names) and on every keystroke in a form's menu (the options answer). Against the bench's own redis-server,
 * through the store (`createStore`), counting what Redis did (`INFO stats` › total_commands_processed, which
 * includes the one INFO itself).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { knownCampaigns } from '../src/commands/campaign-ref.js';
import { menuOptions } from '../src/commands/catalog-select.js';
import { CATALOG_LIMITS, createStore } from '../src/store/index.js';
import type { RedisServer } from './lib/redis-server.js';

export interface CatalogFigures {
  /** An event naming a campaign and agent the catalog knows: µs per event, Redis commands per event. */
  known: { us: number; commands: number; events: number };
  /** The same loop awaiting an empty async function: what the loop itself costs per event (the baseline). */
  baselineUs: number;
  /** Every event naming a campaign never seen (a flood of made-up ids): µs and Redis commands per event. */
  fresh: { us: number; commands: number; events: number; kept: number };
  /** The campaign menu's answer with the catalog full: median and p99 ms, over `answers`. */
  options: { p50: number; p99: number; answers: number; offered: number };
}

export async function runCatalog(
  redis: RedisServer,
  opts: { events: number; answers: number },
): Promise<CatalogFigures> {
  const store = createStore({ redisUrl: redis.url, keyPrefix: 'bench-catalog:', secretsKey: randomBytes(32) });
  const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await redis.client.info('stats'))?.[1]);
  try {
    const team = 'T0BENCH';
    const sighting = { campaignId: 'camp-1', campaignName: 'Spring Recall', campaignType: 'outbound' };
    await store.catalog.noteSighting(team, { ...sighting, agentId: 'agent-7', agentName: 'Riley' });

    const noop = async (_team: string, _s: object): Promise<void> => {};
    let started = performance.now();
    for (let i = 0; i < opts.events; i++) await noop(team, { ...sighting, agentId: 'agent-7', agentName: 'Riley' });
    const baselineMs = performance.now() - started;

    let before = await commands();
    started = performance.now();
    for (let i = 0; i < opts.events; i++)
      await store.catalog.noteSighting(team, { ...sighting, agentId: 'agent-7', agentName: 'Riley' });
    const knownMs = performance.now() - started;
    const knownCommands = (await commands()) - before - 1;

    const flood = Math.min(opts.events, 5_000);
    before = await commands();
    started = performance.now();
    for (let i = 0; i < flood; i++) await store.catalog.noteSighting(team, { campaignId: `made-up-${i}` });
    const freshMs = performance.now() - started;
    const freshCommands = (await commands()) - before - 1;
    const kept = await store.kv.hashLen(store.keys.catalog(team, 'campaigns'));

    const times: number[] = [];
    let offered = 0;
    for (let i = 0; i < opts.answers; i++) {
      const t = performance.now();
      const known = await knownCampaigns({ store }, team);
      offered = menuOptions(i % 2 === 0 ? '' : 'made-up-4', known, (e) => e.name ?? e.id).length;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return {
      known: { us: (knownMs * 1000) / opts.events, commands: knownCommands / opts.events, events: opts.events },
      baselineUs: (baselineMs * 1000) / opts.events,
      fresh: { us: (freshMs * 1000) / flood, commands: freshCommands / flood, events: flood, kept },
      options: {
        p50: times[Math.floor(times.length / 2)]!,
        p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!,
        answers: opts.answers,
        offered,
      },
    };
  } finally {
    await store.close();
  }
}

export const CAMPAIGNS_KEPT = CATALOG_LIMITS.campaigns;
