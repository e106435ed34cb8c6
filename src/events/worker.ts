/**
 * The queue consumer that turns queued webhook events into Slack posts.
 *
 * - Order: entries of one call / conversation run one at a time in arrival order (the queue's orderKey).
 * - Slack 429: the entry is retried after Retry-After without counting an attempt and without letting later
 *   events of the same call/conversation overtake it.
 * - Any other failure: retried with backoff, then dead-lettered after `maxAttempts` (kept with its payload,
 *   counted in `/campaign subscriptions`).
 * - Unknown triggers: logged and dead-lettered on purpose — the payload is kept whole for inspection instead
 *   of being posted half-understood (their order key is their own, so nothing waits behind them).
 * - Several channels, card + transcript: each step is remembered (`StepLog`), so retries never post twice.
 */
import { hostname } from 'node:os';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { Metrics } from '../bot/metrics.js';
import { isRetryLaterError, type Consumer, type QueueEntry, type Store } from '../store/index.js';
import { isTriggerName, parseEvent, type KnownEvent } from './events.js';
import { eventJobSchema } from './job.js';
import { renderCallCompleted, renderEvent, renderTranscript } from './render/index.js';
import { channelsFor, messageDestination } from './router.js';
import { asRetryLater, slackErrorCode, type WorkerSlack } from './slack-client.js';
import { StepLog } from './steps.js';
import type { MessagePayload } from '../slack/blocks.js';

export interface WorkerOptions {
  /** Consumer name; default `<hostname>:<pid>:<n>` (stable across restarts of the same container). */
  consumer?: string;
  /** Calls/conversations handled at the same time. Default 8. */
  concurrency?: number;
  /** Failed tries before an entry is dead-lettered. Default 5. */
  maxAttempts?: number;
  /** A silent consumer's entries are taken over after this long. Default 30 s. */
  claimIdleMs?: number;
  /** How long one read waits for new entries. Default 5 s (stop() interrupts it). */
  blockMs?: number;
  retryDelayMs?: (attempt: number) => number;
  pollMs?: number;
}

/** Raised for an event this app cannot handle: after the retries it is a dead letter (kept, counted). */
export class UnhandledEventError extends Error {
  override readonly name = 'UnhandledEventError';
}

export const DEFAULT_MAX_ATTEMPTS = 5;

let consumersInProcess = 0;

export class EventWorker {
  private consumer: Consumer | undefined;
  private readonly steps: StepLog;

  constructor(
    private readonly store: Store,
    private readonly slack: WorkerSlack,
    private readonly logger: Logger,
    private readonly metrics: Metrics | undefined,
    private readonly options: WorkerOptions = {},
  ) {
    this.steps = new StepLog(store);
  }

  start(): void {
    if (this.consumer) return;
    const { consumer, ...settings } = this.options;
    const name = consumer ?? `${hostname()}:${process.pid}:${++consumersInProcess}`;
    this.consumer = this.store.queue.consume((entry) => this.handleCounted(entry), {
      consumer: name,
      ...definedOnly(settings),
      maxAttempts: this.options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    });
    this.logger.info({ consumer: name }, 'event worker started');
  }

  /** Stops taking work; resolves when the posts already under way are done. */
  async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    if (consumer) await consumer.stop();
  }

  /** `handle`, counting the entries its last failed attempt turns into dead letters. */
  private async handleCounted(entry: QueueEntry): Promise<void> {
    try {
      await this.handle(entry);
    } catch (err) {
      if (!isRetryLaterError(err) && entry.attempt >= (this.options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)) {
        const trigger = eventJobSchema.safeParse(entry.payload).data?.trigger ?? 'unknown';
        this.metrics?.eventsDeadLettered.inc({ trigger: isTriggerName(trigger) ? trigger : 'unknown' });
      }
      throw err;
    }
  }

  async handle(entry: QueueEntry): Promise<void> {
    const job = eventJobSchema.safeParse(entry.payload);
    if (!job.success) throw new UnhandledEventError('queue entry is not an event job (v1): kept as a dead letter');
    const { trigger, event: raw } = job.data;
    const log = this.logger.child({ team: entry.teamId, trigger, entry: entry.id, attempt: entry.attempt });

    if (!isTriggerName(trigger)) {
      log.warn({ fields: Object.keys(raw).slice(0, 40) }, 'event with an unknown trigger: kept as a dead letter, not posted');
      throw new UnhandledEventError(`unknown trigger "${trigger}": not posted, kept for inspection`);
    }
    const parsed = parseEvent(raw, trigger);
    if (!parsed.ok || !parsed.event.known) {
      throw new UnhandledEventError(`queued ${trigger} event no longer validates: ${parsed.ok ? 'unknown' : parsed.problem}`);
    }
    const event = parsed.event;
    const channels = await channelsFor(this.store, entry.teamId, event);
    if (channels.length === 0) {
      log.info({ campaignId: event.data.campaignId }, 'no channel is subscribed to this event any more: nothing to post');
      return;
    }

    const slack = await this.slack.clientFor(entry.teamId);
    const failed: string[] = [];
    for (const channel of channels) {
      try {
        await this.deliver(slack, entry, event, channel);
      } catch (err) {
        const later = asRetryLater(err);
        if (later) {
          this.metrics?.slackRateLimited.inc({ method: 'chat.postMessage' });
          log.info({ channel, retryInMs: later.delayMs }, 'Slack rate limit: the event waits its turn');
          throw later;
        }
        const code = slackErrorCode(err);
        log.warn({ err, channel, slackError: code }, hintFor(code));
        failed.push(`${channel}: ${code ?? (err instanceof Error ? err.message : String(err))}`);
      }
    }
    if (failed.length > 0) {
      throw new Error(`posting failed in ${failed.join('; ')}`);
    }
    this.metrics?.eventsPosted.inc({ trigger });
    log.info({ channels: channels.length }, 'event posted');
  }

  private async deliver(slack: WebClient, entry: QueueEntry, event: KnownEvent, channel: string): Promise<void> {
    const ref = (step: string) => ({ teamId: entry.teamId, entryId: entry.id, channel, step });
    switch (event.trigger) {
      case 'call_completed': {
        const card = await this.steps.once(ref('card'), () => post(slack, { channel }, renderCallCompleted(event.data)));
        const transcript = renderTranscript(event.data);
        if (!transcript) return;
        await this.steps.once(ref('transcript'), async () => {
          if (transcript.kind === 'message') return post(slack, { channel, threadTs: card.result }, transcript.payload);
          await slack.filesUploadV2({
            channel_id: channel,
            thread_ts: card.result,
            file: Buffer.from(transcript.content, 'utf8'),
            filename: transcript.filename,
            title: transcript.title,
            initial_comment: transcript.comment,
          });
          return 'file';
        });
        return;
      }
      case 'message_received':
      case 'message_sent': {
        const to = await messageDestination(entry.teamId, channel, event);
        await this.steps.once(ref('post'), () => post(slack, to, renderEvent(event)));
        return;
      }
      default:
        await this.steps.once(ref('post'), () => post(slack, { channel }, renderEvent(event)));
    }
  }
}

/** chat.postMessage; resolves with the message ts. */
async function post(slack: WebClient, to: { channel: string; threadTs?: string }, payload: MessagePayload): Promise<string> {
  const res = await slack.chat.postMessage({
    channel: to.channel,
    ...(to.threadTs ? { thread_ts: to.threadTs } : {}),
    text: payload.text,
    blocks: payload.blocks,
    // Platform text may contain URLs: never unfurl them into the channel.
    unfurl_links: false,
    unfurl_media: false,
  });
  if (!res.ts) throw new Error('chat.postMessage answered without a ts');
  return res.ts;
}

function hintFor(code: string | undefined): string {
  switch (code) {
    case 'not_in_channel':
    case 'channel_not_found':
      return 'could not post an event: the bot is not in this channel (invite @Campaign, or /campaign unsubscribe there)';
    case 'is_archived':
      return 'could not post an event: the channel is archived (/campaign unsubscribe there)';
    case 'invalid_auth':
    case 'token_revoked':
    case 'account_inactive':
      return 'could not post an event: the bot token is not valid for this workspace';
    default:
      return 'could not post an event to a channel; it will be retried';
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
