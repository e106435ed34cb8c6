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
 * - Chat messages: into their conversation's thread (a parent card per channel, `threads.ts`); the platform's
 *   echo of a reply sent from Slack is dropped; `message_session_completed` closes the conversation's threads.
 */
import { hostname } from 'node:os';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { Metrics } from '../bot/metrics.js';
import { isRetryLaterError, type Consumer, type QueueEntry, type Store } from '../store/index.js';
import type { ConversationRef } from '../store/conversations.js';
import { isTriggerName, type KnownEvent, type SessionCompleted } from './events.js';
import { jobEvent, readJob } from './job.js';
import { renderAgentLine, renderCallCompleted, renderCustomerLine, renderEvent, renderTranscript } from './render/index.js';
import { channelsFor } from './router.js';
import { asRetryLater, postMessage as post, slackErrorCode, type WorkerSlack } from './slack-client.js';
import { StepLog } from './steps.js';
import { ConversationThreads, conversationOf } from './threads.js';

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
  private readonly threads: ConversationThreads;

  constructor(
    private readonly store: Store,
    private readonly slack: WorkerSlack,
    private readonly logger: Logger,
    private readonly metrics: Metrics | undefined,
    private readonly options: WorkerOptions = {},
  ) {
    this.steps = new StepLog(store);
    this.threads = new ConversationThreads(store, this.steps);
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
        const trigger = readJob(entry.payload).data?.trigger ?? 'unknown';
        this.metrics?.eventsDeadLettered.inc({ trigger: isTriggerName(trigger) ? trigger : 'unknown' });
      }
      throw err;
    }
  }

  async handle(entry: QueueEntry): Promise<void> {
    const job = readJob(entry.payload);
    if (!job.success) throw new UnhandledEventError('queue entry is not an event job (v1): kept as a dead letter');
    const { trigger, event: raw } = job.data;
    const log = this.logger.child({ team: entry.teamId, trigger, entry: entry.id, attempt: entry.attempt });

    if (!isTriggerName(trigger)) {
      log.warn({ fields: Object.keys(raw).slice(0, 40) }, 'event with an unknown trigger: kept as a dead letter, not posted');
      throw new UnhandledEventError(`unknown trigger "${trigger}": not posted, kept for inspection`);
    }
    const parsed = jobEvent(job.data);
    if (!parsed.ok || !parsed.event.known) {
      throw new UnhandledEventError(`queued ${trigger} event no longer validates: ${parsed.ok ? 'unknown' : parsed.problem}`);
    }
    const event = parsed.event;

    if (event.trigger === 'message_sent') {
      const ref = conversationOf(entry.teamId, event.data);
      if (ref && (await this.threads.isEcho(entry.teamId, entry.id, ref, event.data.messageContent))) {
        log.info({ campaignId: ref.campaignId }, 'message_sent is the echo of a reply sent from a Slack thread: not posted again');
        return;
      }
    }
    if (event.trigger === 'message_session_completed') {
      const ref = conversationOf(entry.teamId, event.data);
      if (ref) {
        await this.closeConversation(entry, ref, event.data, log);
        return;
      }
      // Without the campaign and number there is no conversation to close: posted where messages go.
    }

    const channels = await channelsFor(this.store, entry.teamId, event);
    if (channels.length === 0) {
      log.info({ campaignId: event.data.campaignId }, 'no channel is subscribed to this event any more: nothing to post');
      return;
    }
    const slack = await this.slack.clientFor(entry.teamId);
    await this.eachChannel(channels, log, (channel) => this.deliver(slack, entry, event, channel, log));
    this.metrics?.eventsPosted.inc({ trigger });
    log.info({ channels: channels.length }, 'event posted');
  }

  /** `message_session_completed`: every open thread of the conversation closed, whatever the routes say now. */
  private async closeConversation(entry: QueueEntry, ref: ConversationRef, data: SessionCompleted, log: Logger): Promise<void> {
    const closed = await this.threads.closeOnce(entry.teamId, entry.id, ref);
    if (closed.length === 0) {
      log.info({ campaignId: ref.campaignId }, 'chat session completed for a conversation with no open thread: nothing to close');
      return;
    }
    const slack = await this.slack.clientFor(entry.teamId);
    // One thread per channel (the conversation records them by channel).
    const byChannel = new Map(closed.map((t) => [t.channelId, t.threadTs]));
    await this.eachChannel([...byChannel.keys()], log, (channel) =>
      this.threads.markClosed(slack, entry.id, entry.teamId, { channelId: channel, threadTs: byChannel.get(channel) ?? '' }, data, log),
    );
    this.metrics?.eventsPosted.inc({ trigger: 'message_session_completed' });
    log.info({ threads: closed.length, campaignId: ref.campaignId }, 'conversation closed');
  }

  /**
   * Runs `work` for every channel. A Slack 429 stops at once (the entry waits out Retry-After, keeping its
   * place); other failures are collected and fail the entry after the other channels had their turn.
   */
  private async eachChannel(channels: string[], log: Logger, work: (channel: string) => Promise<void>): Promise<void> {
    const failed: string[] = [];
    for (const channel of channels) {
      try {
        await work(channel);
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
  }

  private async deliver(slack: WebClient, entry: QueueEntry, event: KnownEvent, channel: string, log: Logger): Promise<void> {
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
        const conversation = conversationOf(entry.teamId, event.data);
        if (!conversation) {
          // No campaign or number: no conversation to thread it into, so a plain channel post.
          await this.steps.once(ref('post'), () => post(slack, { channel }, renderEvent(event)));
          return;
        }
        const threadTs = await this.threads.threadIn(slack, entry.id, channel, conversation, event.data, log);
        const line = event.trigger === 'message_received' ? renderCustomerLine(event.data) : renderAgentLine(event.data);
        await this.steps.once(ref('post'), () => post(slack, { channel, threadTs }, line));
        return;
      }
      default:
        await this.steps.once(ref('post'), () => post(slack, { channel }, renderEvent(event)));
    }
  }
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
