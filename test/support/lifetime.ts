/**
 * Something the tests of a file (or describe block) share — a harness, a stack of processes, a proxy: started
 * before them, closed after them.
 */
import { afterAll, beforeAll } from 'vitest';

/**
 * Starts `start()` before the tests and closes what it gave after them. The object returned stands for it once
 * it has started (`stack.startBot()`, `h.slack`…), so a file needs no variable assigned in a hook.
 */
export function startedForTests<T extends { close(): Promise<unknown> }>(
  start: () => Promise<T>,
  startTimeoutMs?: number,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as T, {
    get(_, key) {
      if (!started) throw new Error('it starts before the tests (beforeAll): use it inside them');
      return Reflect.get(started, key) as unknown;
    },
  });
}
