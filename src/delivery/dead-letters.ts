/**
 * Dead letters of the channels' outboxes: buried with each channel's cause, and posted again when an admin presses
 * Retry in `/campaign failed` — a call back to its channels' outboxes, any other event queued again — under the
 * letter's own id, so channels that had it do not get it twice, and given up again it is the same letter.
 */
import type { ChannelRef, DeadLetter, EnqueueOptions, Store } from '../store/index.js';
import type { CallOutbox } from './call-lane.js';
import type { PostContext } from './post-context.js';
import { readJob } from '../events/job.js';

/** `gone`: another admin retried it already (or it aged out); `full`: the workspace's backlog is full. */
export type RetryOutcome = 'queued' | 'gone' | 'full' | 'unreadable';

/** Long enough that a retry is queued once, whatever the platform does meanwhile. */
const RETRY_DEDUP_TTL_MS = 24 * 60 * 60_000;

/** The event's letter with this channel's cause (merged into the letter kept already: counted once). */
export async function buryFor(
  context: PostContext,
  at: ChannelRef,
  letter: Omit<DeadLetter, 'error' | 'causes'>,
  cause: string,
  trigger: string,
): Promise<void> {
  const error = `posting failed in ${at.channelId}: ${cause}`;
  if (await context.store.queue.bury({ ...letter, error, causes: [{ channel: at.channelId, error: cause }] }))
    context.metrics?.eventsDeadLettered.inc({ trigger });
}

export async function retryDeadLetter(
  store: Store,
  outbox: CallOutbox,
  teamId: string,
  id: string,
  caps: EnqueueOptions,
): Promise<RetryOutcome> {
  const letter = await store.queue.takeDeadLetter(teamId, id);
  if (!letter) return 'gone';
  let outcome: RetryOutcome | undefined;
  try {
    return (outcome = await requeue(store, outbox, letter, caps));
  } finally {
    // Not queued (or it failed): back in the list for another try, not counted again.
    if (outcome !== 'queued') await store.queue.bury({ ...letter, retried: true });
  }
}

async function requeue(store: Store, outbox: CallOutbox, letter: DeadLetter, caps: EnqueueOptions) {
  const { teamId } = letter;
  // An admin retrying says the channels are fixed: they take posts again.
  const channels = (letter.causes ?? []).map((c) => c.channel);
  for (const channel of channels) await store.channelPauses.resume(teamId, channel);
  if (await outbox.retry(teamId, letter.id, letter.payload, channels)) return 'queued';
  const job = readJob(letter.payload);
  if (!job.success) return 'unreadable';
  const payload = { ...job.data, retryOf: job.data.retryOf ?? letter.id };
  const event = { teamId, orderKey: letter.orderKey, payload };
  const result = await store.queue.enqueueOnce(`retry:${letter.id}:${Date.now()}`, event, RETRY_DEDUP_TTL_MS, caps);
  return result === 'full' || result === 'full_bytes' ? 'full' : 'queued';
}
