import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { shortDigest } from './digest.js';
import { entryRef } from './queue-backend.js';
import type { QueueReader, StoredEntry } from './queue-backend.js';
import type { ConsumeOptions, Consumer, EnqueueOptions, EnqueueResult, QueueEvent, QueueHandler } from './queue.js';

/** Pause after a backend error (Redis unreachable…) before trying again. */
const ERROR_BACKOFF_MS = 1_000;
/** Entries taken over per claim round. */
const CLAIM_BATCH = 100;
/**
 * Handlers started in one event-loop turn before the next ones wait for the following turn. A backend that
 * answers at once (memory) finishes a handler within the turn that started it: without a bound, a backlog
 * would be worked off in one go while no request is answered (tens of ms per thousand). Enough to keep pace
 * with a turn's worth of webhooks, so queued events die young instead of piling up in the old generation.
 */
const STARTS_PER_TURN = 256;
const MAX_ERROR_LENGTH = 2_000;

const defaultRetryDelayMs = (attempt: number): number => Math.min(1_000 * 2 ** Math.max(0, attempt - 1), 60_000);

interface Held {
  entry: StoredEntry;
  /** Epoch ms before which the entry is not tried (backoff after a failed try). */
  notBefore: number;
  /** Tries of this consumer that failed. */
  failures: number;
  /** The handler succeeded; only the completion still has to be recorded. */
  handled: boolean;
}

function positiveInt(where: string, name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${where}: ${name} must be a positive integer`);
  return value;
}

export function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message || error.name : String(error);
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH)}…` : message;
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => undefined);
}

/**
 * One consumer: reads entries, runs the handler on up to `concurrency` of them at once, tries a failed one again
 * after a pause, keeps its entries alive with heartbeats and takes over entries of consumers that went silent.
 */
class QueueConsumer implements Consumer {
  readonly name: string;
  private readonly settings: Required<ConsumeOptions>;
  private readonly reader: QueueReader;
  /** Entries this consumer holds, by `entryRef`. Map order = the order they are tried in (round robin). */
  private readonly held = new Map<string, Held>();
  /** `entryRef` → its running task. */
  private readonly active = new Map<string, Promise<void>>();
  /** team id → how many of its entries are running. */
  private readonly activeTeams = new Map<string, number>();
  private readonly takeWork = new AbortController();
  private readonly beat = new AbortController();
  private readonly loops: Promise<void>[];
  private readonly heartbeats: Promise<void>;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private yielded: NodeJS.Immediate | undefined;
  /** Handlers started in this event-loop turn (see STARTS_PER_TURN); reset on the next turn. */
  private startedInTurn = 0;
  private turnEnds: NodeJS.Immediate | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private roomWaiter: (() => void) | undefined;

  constructor(
    private readonly queue: ConsumerGroupQueue,
    private readonly handler: QueueHandler,
    options: ConsumeOptions,
    private readonly logger: Logger,
    private readonly onStopped: (consumer: QueueConsumer) => void,
  ) {
    if (options.consumer.length === 0) throw new Error('consume: consumer name is empty');
    const concurrency = positiveInt('consume', 'concurrency', options.concurrency ?? 8);
    this.settings = {
      consumer: options.consumer,
      concurrency,
      blockMs: positiveInt('consume', 'blockMs', options.blockMs ?? 5_000),
      claimIdleMs: positiveInt('consume', 'claimIdleMs', options.claimIdleMs ?? 30_000),
      retryDelayMs: options.retryDelayMs ?? defaultRetryDelayMs,
      prefetch: positiveInt('consume', 'prefetch', options.prefetch ?? concurrency * 4),
      onFinished: options.onFinished ?? (() => undefined),
    };
    this.name = options.consumer;
    this.reader = queue.openReader(this.name);
    this.loops = [this.fetchLoop(), this.claimLoop()];
    this.heartbeats = this.heartbeatLoop();
  }

  stop(): Promise<void> {
    return (this.stopped ??= this.shutdown());
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    this.takeWork.abort();
    clearTimeout(this.wakeTimer);
    clearImmediate(this.yielded);
    clearImmediate(this.turnEnds);
    this.reader.close();
    this.roomWaiter?.();
    await Promise.all(this.loops);
    while (this.active.size > 0) await Promise.allSettled([...this.active.values()]);
    // Heartbeats run until the last handler is done, so a long handler is not taken over mid-way.
    this.beat.abort();
    await this.heartbeats;
    this.onStopped(this);
  }

  private async fetchLoop(): Promise<void> {
    try {
      // Entries this consumer name held before a restart come back first.
      this.add(await this.reader.readOwnPending());
    } catch (error) {
      if (!this.stopping) this.warn(error, 'queue: reading own pending entries failed');
    }
    // Under a backlog, reading again as soon as one entry finishes means one more round trip per entry: while
    // every handler slot is busy, the next read waits until half the read-ahead is free, and takes that much.
    const batch = Math.ceil(this.settings.prefetch / 2);
    while (!this.stopping) {
      const room = this.settings.prefetch - this.held.size;
      if (room <= 0 || (room < batch && this.active.size >= this.settings.concurrency)) {
        await new Promise<void>((resolve) => (this.roomWaiter = resolve));
        this.roomWaiter = undefined;
        continue;
      }
      try {
        this.add(await this.reader.readNew(room, this.settings.blockMs));
      } catch (error) {
        if (this.stopping) return;
        this.warn(error, 'queue: read failed');
        await pause(ERROR_BACKOFF_MS, this.takeWork.signal);
      }
    }
  }

  /** Takes over entries of consumers that stopped heartbeating (crashed, hung, or stopped with entries held). */
  private async claimLoop(): Promise<void> {
    const every = Math.max(10, Math.floor(this.settings.claimIdleMs / 2));
    while (!this.stopping) {
      await pause(every, this.takeWork.signal);
      if (this.stopping) return;
      try {
        const claimed = await this.queue.claimStale(this.name, this.settings.claimIdleMs, CLAIM_BATCH);
        if (claimed.length > 0) {
          this.logger.info({ consumer: this.name, count: claimed.length }, 'queue: took over idle entries');
        }
        this.add(claimed);
      } catch (error) {
        if (!this.stopping) this.warn(error, 'queue: claim failed');
      }
    }
  }

  private async heartbeatLoop(): Promise<void> {
    const every = Math.max(10, Math.floor(this.settings.claimIdleMs / 3));
    while (!this.beat.signal.aborted) {
      await pause(every, this.beat.signal);
      if (this.beat.signal.aborted || this.held.size === 0) continue;
      try {
        const lost = await this.queue.heartbeat(
          this.name,
          [...this.held.values()].map((h) => h.entry),
        );
        // A running entry finishes; its completion is safe whoever holds it now (its work is remembered steps).
        for (const ref of lost.map(entryRef)) if (!this.active.has(ref)) this.drop(ref);
      } catch (error) {
        this.warn(error, 'queue: heartbeat failed');
      }
    }
  }

  private add(entries: readonly StoredEntry[]): void {
    for (const entry of entries) {
      const ref = entryRef(entry);
      if (!this.held.has(ref)) this.held.set(ref, { entry, notBefore: 0, failures: 0, handled: false });
    }
    if (entries.length > 0) this.scheduleNext();
  }

  private drop(ref: string): void {
    this.held.delete(ref);
    this.roomWaiter?.();
  }

  /**
   * Starts the held entries that are due, up to `concurrency`; arms a timer for the rest. Teams with nothing
   * running go first, so one team's many events cannot keep every slot from another team.
   */
  private schedule(): void {
    if (this.stopping) return;
    const now = Date.now();
    const limit = this.settings.concurrency;
    let nextWake = Number.POSITIVE_INFINITY;
    for (const idleTeamsOnly of [true, false]) {
      for (const [ref, h] of this.held) {
        if (this.active.size >= limit) break;
        if (this.active.has(ref)) continue;
        if (h.notBefore > now) {
          nextWake = Math.min(nextWake, h.notBefore);
          continue;
        }
        if (idleTeamsOnly && this.activeTeams.has(h.entry.teamId)) continue;
        this.launch(ref, h);
      }
    }
    if (nextWake < this.wakeAt) {
      clearTimeout(this.wakeTimer);
      this.wakeAt = nextWake;
      this.wakeTimer = setTimeout(() => {
        this.wakeTimer = undefined;
        this.wakeAt = Number.POSITIVE_INFINITY;
        this.schedule();
      }, nextWake - now);
    }
  }

  /** After a handler or a read: the next ones start now, or on the next event-loop turn once this turn has started STARTS_PER_TURN. */
  private scheduleNext(): void {
    if (this.startedInTurn < STARTS_PER_TURN) {
      this.schedule();
      return;
    }
    this.yielded ??= setImmediate(() => {
      this.yielded = undefined;
      this.schedule();
    });
  }

  private launch(ref: string, h: Held): void {
    this.startedInTurn++;
    this.turnEnds ??= setImmediate(() => {
      this.turnEnds = undefined;
      this.startedInTurn = 0;
    });
    const team = h.entry.teamId;
    this.activeTeams.set(team, (this.activeTeams.get(team) ?? 0) + 1);
    const task = this.process(h)
      .catch((error: unknown) => {
        this.logger.error({ err: errorMessage(error), consumer: this.name, id: h.entry.id }, 'queue: unexpected error');
        h.notBefore = Date.now() + ERROR_BACKOFF_MS;
      })
      .finally(() => {
        this.active.delete(ref);
        const running = (this.activeTeams.get(team) ?? 1) - 1;
        if (running > 0) this.activeTeams.set(team, running);
        else this.activeTeams.delete(team);
        this.roomWaiter?.(); // a free handler slot: the fetch loop may read now (see fetchLoop)
        // Round robin: an entry tried again goes to the back so the others get their turn.
        if (this.held.get(ref) === h) {
          this.held.delete(ref);
          this.held.set(ref, h);
        }
        this.scheduleNext();
      });
    this.active.set(ref, task);
  }

  private async process(h: Held): Promise<void> {
    if (!h.handled) {
      try {
        await this.handler({ ...h.entry, attempt: h.failures + 1 });
      } catch (error) {
        h.failures++;
        const retryInMs = Math.max(0, this.settings.retryDelayMs(h.failures));
        h.notBefore = Date.now() + retryInMs;
        const { id, teamId } = h.entry;
        this.warn(error, 'queue: handler failed, will retry', { id, teamId, attempt: h.failures, retryInMs });
        return;
      }
      h.handled = true;
    }
    try {
      await this.queue.complete(h.entry);
      this.drop(entryRef(h.entry));
      this.settings.onFinished(h.entry.id);
    } catch (error) {
      // The handler already ran; only the acknowledgement is retried.
      this.warn(error, 'queue: could not acknowledge entry', { id: h.entry.id });
      h.notBefore = Date.now() + ERROR_BACKOFF_MS;
    }
  }

  private warn(error: unknown, message: string, fields: object = {}): void {
    this.logger.warn({ err: errorMessage(error), consumer: this.name, ...fields }, message);
  }
}

/**
 * What both event queues share (memory-queue.ts, redis-queue.ts), each implementing the rest of `EventQueue`:
 * `enqueueOnce`'s checks and dedup-key digest, and the consumers, which run over the primitives below.
 * Model (that of a Redis Streams consumer group): every entry is either waiting or pending for exactly one consumer
 * until it is completed; waiting entries are kept per team and handed out round robin between teams.
 */
export abstract class ConsumerGroupQueue {
  private readonly consumers = new Set<QueueConsumer>();

  constructor(protected readonly logger: Logger) {}

  /** See `EventQueue.enqueueOnce`. */
  async enqueueOnce(
    dedupKey: string,
    event: QueueEvent,
    dedupTtlMs: number,
    options: EnqueueOptions = {},
  ): Promise<EnqueueResult> {
    positiveInt('enqueueOnce', 'dedupTtlMs', dedupTtlMs);
    const { maxBacklog, maxBacklogBytes } = options;
    if (maxBacklog !== undefined) positiveInt('enqueueOnce', 'maxBacklog', maxBacklog);
    if (maxBacklogBytes !== undefined) positiveInt('enqueueOnce', 'maxBacklogBytes', maxBacklogBytes);
    return this.enqueueMarked(shortDigest(dedupKey), event, dedupTtlMs, options);
  }

  /** `enqueueOnce` with the dedup key as its `shortDigest` (`mark`) and the arguments checked. */
  protected abstract enqueueMarked(
    mark: string,
    event: QueueEvent,
    dedupTtlMs: number,
    options: EnqueueOptions,
  ): Promise<EnqueueResult>;

  consume(handler: QueueHandler, options: ConsumeOptions): Consumer {
    const consumer = new QueueConsumer(this, handler, options, this.logger, (c) => this.consumers.delete(c));
    this.consumers.add(consumer);
    return consumer;
  }

  abstract openReader(consumer: string): QueueReader;
  /** Takes over up to `count` entries pending (for any consumer) without a heartbeat for `minIdleMs`. */
  abstract claimStale(consumer: string, minIdleMs: number, count: number): Promise<StoredEntry[]>;
  /** Keeps `entries` from being claimed by others. Returns those that no longer belong to this consumer. */
  abstract heartbeat(consumer: string, entries: readonly StoredEntry[]): Promise<StoredEntry[]>;
  /** Finishes the entry: acknowledged, removed. */
  abstract complete(entry: StoredEntry): Promise<void>;

  /** See `EventQueue.close`: stops the consumers (each closes its reader). */
  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
  }
}
