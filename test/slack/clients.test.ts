/**
 * The Slack clients for work outside a Slack request (src/delivery/clients.ts): one per workspace and way of
 * waiting, a new one when the workspace's token changed, none for a workspace without a token, and never more
 * than the bound — the least recently used goes first.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SlackClients } from '../../src/delivery/clients.js';
import type { Urgency } from '../../src/delivery/pace.js';
import { SlackPace } from '../../src/delivery/pace.js';
import { MemoryRateBudget } from '../../src/store/rate-budget.js';

const QUEUE: Urgency = 'urgent';
const ROUTINE: Urgency = 'routine';

function clients(tokens: Map<string, string>, maxClients?: number): SlackClients {
  return new SlackClients({
    apiUrl: 'http://127.0.0.1:9/api/',
    pace: new SlackPace(new MemoryRateBudget()),
    tokenFor: (teamId) => Promise.resolve(tokens.get(teamId)),
    logger: pino({ enabled: false }),
    ...(maxClients === undefined ? {} : { maxClients }),
  });
}

describe('SlackClients', () => {
  it('keeps one client per workspace and urgency, made with the workspace’s token', async () => {
    const tokens = new Map([['T1', 'xoxb-1-one']]);
    const pool = clients(tokens);
    const first = await pool.forTeam('T1', QUEUE);
    expect(first?.token).toBe('xoxb-1-one');
    expect(await pool.forTeam('T1', QUEUE)).toBe(first);
    expect(await pool.forTeam('T1', ROUTINE)).not.toBe(first);
    expect(pool.size).toBe(2);
  });

  it('lets a replaced token’s client go, and a workspace’s clients once it has no token', async () => {
    const tokens = new Map([['T1', 'xoxb-1-old']]);
    const pool = clients(tokens);
    const old = await pool.forTeam('T1', QUEUE);
    tokens.set('T1', 'xoxb-1-new'); // reinstalled
    const renewed = await pool.forTeam('T1', QUEUE);
    expect(renewed?.token).toBe('xoxb-1-new');
    expect(renewed).not.toBe(old);
    expect(pool.size).toBe(1);

    tokens.delete('T1'); // uninstalled
    expect(await pool.forTeam('T1', QUEUE)).toBeUndefined();
    expect(pool.size).toBe(0);
  });

  it('never keeps more than its bound: the least recently used client goes first', async () => {
    const tokens = new Map(['T1', 'T2', 'T3', 'T4'].map((t) => [t, `xoxb-${t}`]));
    const pool = clients(tokens, 3);
    const t1 = await pool.forTeam('T1', QUEUE);
    const t2 = await pool.forTeam('T2', QUEUE);
    await pool.forTeam('T3', QUEUE);
    expect(await pool.forTeam('T1', QUEUE)).toBe(t1); // T1 used again: T2 is now the least recent
    await pool.forTeam('T4', QUEUE);
    expect(pool.size).toBe(3);
    expect(await pool.forTeam('T1', QUEUE)).toBe(t1);
    expect(await pool.forTeam('T2', QUEUE)).not.toBe(t2); // let go, made again
    expect(pool.size).toBe(3);
  });

  it('forgets an uninstalled workspace’s clients and no other’s', async () => {
    const tokens = new Map([
      ['T1', 'xoxb-1'],
      ['T12', 'xoxb-12'],
    ]);
    const pool = clients(tokens);
    await pool.forTeam('T1', QUEUE);
    await pool.forTeam('T1', ROUTINE);
    const other = await pool.forTeam('T12', QUEUE);
    pool.forget('T1');
    expect(pool.size).toBe(1);
    expect(await pool.forTeam('T12', QUEUE)).toBe(other);
  });
});
