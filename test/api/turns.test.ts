/**
 * Per-workspace turns (the transport's fairness): a few at once per workspace, the rest first come first
 * served in a bounded list for a bounded time; workspaces never wait for each other. The longest wait is
 * judged on vitest's fake clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyedTurns, TurnRefused, type Release } from '../../src/api/turns.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Whether a promise has settled yet (after the microtasks queued so far). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe('KeyedTurns', () => {
  it('runs up to the limit at once per workspace; the next waits and is told how many are ahead', async () => {
    const turns = new KeyedTurns({ concurrency: 2, maxWaiting: 5, maxWaitMs: 60_000 });
    const a1 = await turns.take('A');
    await turns.take('A');
    const told: number[] = [];
    const third = turns.take('A', (ahead) => told.push(ahead));
    const fourth = turns.take('A', (ahead) => told.push(ahead));
    expect(told).toEqual([2, 3]);
    expect(await settled(third)).toBe(false);

    a1();
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false); // first come, first served
    expect(turns.load('A')).toEqual({ running: 2, waiting: 1 });
  });

  it('another workspace goes ahead at once while one is full and waiting', async () => {
    const turns = new KeyedTurns({ concurrency: 1, maxWaiting: 1, maxWaitMs: 60_000 });
    await turns.take('A');
    void turns.take('A');
    let waitedB = false;
    const b = await turns.take('B', () => (waitedB = true));
    expect(waitedB).toBe(false);
    expect(typeof b).toBe('function');
  });

  it('refuses at once beyond the waiting list (full), and the refused one takes no place', async () => {
    const turns = new KeyedTurns({ concurrency: 1, maxWaiting: 1, maxWaitMs: 60_000 });
    const first = await turns.take('A');
    const second = turns.take('A');
    const refused = await turns.take('A').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TurnRefused);
    expect(refused).toMatchObject({ reason: 'full' });
    first();
    expect(await settled(second)).toBe(true);
    expect(turns.load('A')).toEqual({ running: 1, waiting: 0 });
  });

  it('refuses a waiter whose turn does not come within maxWaitMs, and the line moves on without it', async () => {
    vi.useFakeTimers();
    const turns = new KeyedTurns({ concurrency: 1, maxWaiting: 5, maxWaitMs: 20_000 });
    const first = await turns.take('A');
    const late = turns.take('A').catch((err: unknown) => err);
    vi.advanceTimersByTime(10_000);
    const later = turns.take('A');
    vi.advanceTimersByTime(10_000);
    expect(await late).toMatchObject({ reason: 'waited' });
    expect(turns.load('A')).toEqual({ running: 1, waiting: 1 });

    first();
    expect(await settled(later)).toBe(true);
    vi.advanceTimersByTime(60_000); // its timer was cleared when its turn came
    expect(turns.load('A')).toEqual({ running: 1, waiting: 0 });
  });

  it('a release given twice frees one place only; an idle workspace leaves nothing behind', async () => {
    const turns = new KeyedTurns({ concurrency: 1, maxWaiting: 5, maxWaitMs: 60_000 });
    const first: Release = await turns.take('A');
    const second = turns.take('A');
    const third = turns.take('A');
    first();
    first();
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(false);
    (await second)();
    (await third)();
    expect(turns.load('A')).toEqual({ running: 0, waiting: 0 });
  });

  it('close refuses the waiting and anything later; those running finish', async () => {
    const turns = new KeyedTurns({ concurrency: 1, maxWaiting: 5, maxWaitMs: 60_000 });
    const running = await turns.take('A');
    const waiting = turns.take('A').catch((err: unknown) => err);
    turns.close();
    expect(await waiting).toMatchObject({ reason: 'closed' });
    expect(await turns.take('B').catch((err: unknown) => err)).toMatchObject({ reason: 'closed' });
    running();
    expect(turns.load('A')).toEqual({ running: 0, waiting: 0 });
  });

  it('a listener that throws does not cost the request its place', async () => {
    const turns = new KeyedTurns({ concurrency: 1, maxWaiting: 5, maxWaitMs: 60_000 });
    const first = await turns.take('A');
    const second = turns.take('A', () => {
      throw new Error('could not tell the user');
    });
    first();
    expect(await settled(second)).toBe(true);
  });
});
