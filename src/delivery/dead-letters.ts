/**
 * Posting a dead letter again, when an admin presses Retry in `/campaign failed`: a call given up in its
 * channel goes back to that channel's outbox; any other event is queued again. Either way under the dead
 * letter's own id for its steps, so channels that had it already do not get it twice.
 */
import type { DeadLetter, EnqueueOptions, Store } from '../store/index.js';
import type { CallOutbox } from './call-lane.js';
import { readJob } from '../events/job.js';

/** `gone`: another admin retried it already (or it aged out); `full`: the workspace's backlog is full. */
export type RetryOutcome = 'queued' | 'gone' | 'full' | 'unreadable';

/** Long enough that a retry is queued once, whatever the platform does meanwhile. */
const RETRY_DEDUP_TTL_MS = 24 * 60 * 60_000;

export async function retryDeadLetter(
  store: Store,
  outbox: CallOutbox,
  teamId: string,
  id: string,
  caps: EnqueueOptions,
): Promise<RetryOutcome> {
  const letter = await store.queue.takeDeadLetter(teamId, id);
  if (!letter) return 'gone';
  try {
    return await requeue(store, outbox, teamId, letter, caps);
  } catch (err) {
    // Nothing was queued: the letter goes back to the list, for another try.
    await store.queue.bury(letter);
    throw err;
  }
}

async function requeue(
  store: Store,
  outbox: CallOutbox,
  teamId: string,
  letter: DeadLetter,
  caps: EnqueueOptions,
): Promise<RetryOutcome> {
  // An admin retrying says the channels are fixed: they take posts again.
  for (const cause of letter.causes ?? []) await store.channelPauses.resume(teamId, cause.channel);
  if (await outbox.retry(teamId, letter.id, letter.payload)) return 'queued';
  const job = readJob(letter.payload);
  if (!job.success) {
    await store.queue.bury(letter);
    return 'unreadable';
  }
  const payload = { ...job.data, retryOf: job.data.retryOf ?? letter.id };
  const result = await store.queue.enqueueOnce(
    `retry:${letter.id}:${Date.now()}`,
    { teamId, orderKey: letter.orderKey, payload },
    RETRY_DEDUP_TTL_MS,
    caps,
  );
  if (result === 'full' || result === 'full_bytes') {
    await store.queue.bury(letter);
    return 'full';
  }
  return 'queued';
}
