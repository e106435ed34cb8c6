/**
 * Posting a dead letter again, when an admin presses Retry in `/campaign failed`: a call given up in its
 * channels goes back to their outboxes; any other event is queued again. Either way under the dead letter's own
 * id for its steps, so channels that had it already do not get it twice — and given up again, it is the same
 * letter: a Retry never adds to the count of letters ever kept.
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
    await putBack(store, letter);
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
  const channels = (letter.causes ?? []).map((c) => c.channel);
  if (await outbox.retry(teamId, letter.id, letter.payload, channels)) return 'queued';
  const job = readJob(letter.payload);
  if (!job.success) {
    await putBack(store, letter);
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
    await putBack(store, letter);
    return 'full';
  }
  return 'queued';
}

/** The letter back in the list, not counted again. */
async function putBack(store: Store, letter: DeadLetter): Promise<void> {
  await store.queue.bury({ ...letter, retried: true });
}
