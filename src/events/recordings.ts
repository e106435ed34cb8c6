/**
 * Call recordings copied into Slack. Once a call's card is posted on its own (calls rolled up into one post keep
 * their links), its recording is queued here; a transfer then fetches it (recording-fetch.ts) and streams it
 * into the card's thread with Slack's external upload (src/slack/external-upload.ts), where Slack shows its
 * audio player.
 *
 * - Nothing waits for it: the card and its transcript are out before the transfer starts. The download and the
 *   upload use none of the channel's Slack budget; the share — the post in the thread — waits in the channel's
 *   outbox (bulk lane, src/delivery/bulk-lane.ts), after the channel's customers and calls, posted by the one
 *   scheduler and judged as every other post (an outage or a 429 waited out, a paused channel kept).
 * - Kept in the store — a timer per recording (the store's timers: they survive restarts, and one replica
 *   claims each firing), its details a remembered step of the call — so a restart or another replica carries
 *   on. At most `PER_WORKSPACE` transfers of one workspace and `PER_PROCESS` in all run in a process, so one
 *   workspace's slow hosts hold only its own recordings; each is streamed, never held whole in memory (unless the
 *   host does not say how long it is: Slack needs the length first, so that one is read into memory, capped).
 * - A host that sends less than 64 KiB in `stallMs` of waiting on it fails the try (`stalled`, tried again
 *   later): dripping a byte now and then holds a slot for that long, not for the whole transfer's 5 minutes.
 * - Each step is remembered: the upload's file id once Slack has the bytes, the share once it is in the thread.
 *   A retry never posts a second copy, and a share Slack made wait (its budget, a 429, an outage) does not
 *   download again.
 * - A recording that cannot be fetched leaves the card's link as it was and one log line (the host only: a
 *   recording URL may carry a signature). A host that is busy or not ready yet (404, 5xx, timeouts) is tried
 *   again a few times first.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import type { WebClient } from '@slack/web-api';
import type { RecordingHost } from '../config.js';
import { SlackUploadError, type FileShares } from '../slack/external-upload.js';
import { classOfSlackError, isFileGone } from '../delivery/slack-errors.js';
import { slackErrorCode } from '../slack/post.js';
import { workspaceTimerId, workspaceTimerParts, type DueTimer } from '../store/index.js';
import type { CallCompleted } from './events.js';
import { RecordingError, RecordingFetcher, type Recording } from './recording-fetch.js';
import { renderRecordingShare } from './render/index.js';
import type { PostingKit } from '../delivery/post-context.js';
import type { BulkPosts } from '../delivery/bulk-lane.js';
import { StepLog, type StepRef } from '../delivery/steps.js';
import { RETENTION_MS } from '../delivery/post-context.js';

export interface RecordingSettings {
  /** `off`: links only; otherwise public https hosts and these. */
  hosts: 'off' | readonly RecordingHost[];
  maxBytes: number;
}

export interface RecordingOptions {
  /** How long a transfer waits on its host for `MIN_PROGRESS_BYTES` before the try fails. Default 20 s. */
  stallMs?: number;
  /** How often recordings due (other replicas', retries) are looked for. Default 1 s. */
  scanMs?: number;
}

/** Where a recording goes: the card's thread. */
export interface RecordingTarget {
  teamId: string;
  channelId: string;
  /** The call's queue entry (its steps are remembered under it). */
  entryId: string;
  /** The card's ts. */
  threadTs: string;
}

interface RecordingJob extends RecordingTarget {
  audioUrl: string;
  /** File name without extension, title, and the comment the share carries. */
  name: string;
  title: string;
  comment: string;
  addedAt: number;
  /** Failed tries so far. */
  attempts: number;
}

const TIMER_KIND = 'call-recording';
/** Transfers at the same time in a process: all workspaces together, and one workspace's. */
const PER_PROCESS = 8;
const PER_WORKSPACE = 2;
/** Longer than a transfer may take (TRANSFER_MS), so one replica at a time has it. */
const LEASE_MS = 10 * 60_000;
/** A whole transfer (download and upload together); a slower one is a timeout, tried again. */
const TRANSFER_MS = 5 * 60_000;
/**
 * What a host must send per `stallMs` spent waiting on it: 3 KB/s by default, far below any file server and
 * below what a largest recording needs to arrive within TRANSFER_MS anyway, far above a drip.
 */
const MIN_PROGRESS_BYTES = 64 * 1024;
/** While other recordings read whole fill the memory set aside for them, how long before this one looks again. */
const DEFER_MS = 5_000;
/** The kind of report a recording's share waits in its channel's outbox as. */
const SHARE_POST = 'call-recording';
/** Waits after the 1st, 2nd and 3rd failed try; the 4th gives up. */
const RETRY_MS = [15_000, 60_000, 180_000];
/** Store trouble or a fault of ours: looked at again after this long. */
const UNEXPECTED_RETRY_MS = 60_000;

export class CallRecordings {
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly fetcher: RecordingFetcher | undefined;
  private readonly steps: StepLog;
  /** Timer ids being transferred by this process → their workspace. */
  private readonly busy = new Map<string, string>();
  /** Bytes of recordings read whole (hosts that send no length) held now, of `bufferBudget`. */
  private buffered = 0;
  /** Two largest recordings: what reading whole could take before there were slots per workspace. */
  private readonly bufferBudget: number;
  private readonly running = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  private scanTimer: NodeJS.Timeout | undefined;
  private scanning = false;
  private rescan = false;
  private stopped = true;

  constructor(
    private readonly kit: PostingKit,
    private readonly bulk: BulkPosts,
    private readonly files: FileShares,
    private readonly settings: RecordingSettings,
    private readonly options: RecordingOptions = {},
  ) {
    this.steps = new StepLog(kit.store, (err) => kit.pace.judge(err));
    bulk.on(SHARE_POST, {
      post: (at, body, { client }) => this.shareWaiting({ ...at, entryId: String(body) }, client),
      gaveUp: (at, body, cause) => this.shareGivenUp({ ...at, entryId: String(body) }, cause),
    });
    this.bufferBudget = 2 * settings.maxBytes;
    this.fetcher =
      settings.hosts === 'off'
        ? undefined
        : new RecordingFetcher({
            hosts: settings.hosts,
            maxBytes: settings.maxBytes,
            minProgress: { bytes: MIN_PROGRESS_BYTES, withinMs: options.stallMs ?? 20_000 },
          });
  }

  /**
   * After a call's card is posted (and its transcript): its recording is queued for the card's thread. Nothing
   * when recordings are off or the call has none; nothing again once it is shared (or given up).
   */
  async add(to: RecordingTarget, call: CallCompleted): Promise<void> {
    if (!this.fetcher || !call.audioUrl) return;
    if (await this.steps.done(stepOf(to, 'recording'))) return;
    const job: RecordingJob = {
      ...to,
      audioUrl: call.audioUrl,
      ...renderRecordingShare(call),
      addedAt: this.now(),
      attempts: 0,
    };
    // Kept as first written: a call handed on again does not reset its tries.
    await this.steps.once(stepOf(to, 'recording-job'), () => Promise.resolve(JSON.stringify(job)));
    await this.kit.store.timers.set(TIMER_KIND, timerId(to), this.now());
    this.kick();
  }

  start(): void {
    if (!this.fetcher || !this.stopped) return;
    this.stopped = false;
    this.scanTimer = setInterval(() => this.kick(), this.options.scanMs ?? 1_000);
    this.kick();
  }

  /** Stops taking work and ends the transfers under way (due again at once, for another replica or the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.scanTimer);
    for (const abort of this.aborts) abort.abort();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    await this.fetcher?.close();
  }

  private now(): number {
    return this.kit.store.now();
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = true;
    this.claimDue()
      .catch((err: unknown) => this.kit.logger.warn({ err }, 'call recordings: could not read the recordings due'))
      .finally(() => {
        this.scanning = false;
        if (this.rescan) {
          this.rescan = false;
          this.kick();
        }
      });
  }

  private async claimDue(): Promise<void> {
    const { timers } = this.kit.store;
    for await (const timer of timers.eachDue(TIMER_KIND, this.now())) {
      if (this.stopped || this.busy.size >= PER_PROCESS) return;
      // A workspace at its share is passed over, not waited on: the next due recording may be another's.
      const team = parseTimerId(timer.id)?.teamId ?? '';
      if (this.busy.has(timer.id) || this.runningFor(team) >= PER_WORKSPACE) continue;
      if (!(await timers.claim(TIMER_KIND, timer, this.owner, LEASE_MS))) continue;
      this.busy.set(timer.id, team);
      const task = this.fire(timer)
        .catch((err: unknown) =>
          this.kit.logger.warn({ err }, 'call recordings: a transfer could not be rescheduled; its lease will expire'),
        )
        .finally(() => {
          this.busy.delete(timer.id);
          this.running.delete(task);
          this.kick();
        });
      this.running.add(task);
    }
  }

  private runningFor(team: string): number {
    let count = 0;
    for (const busyTeam of this.busy.values()) if (busyTeam === team) count += 1;
    return count;
  }

  private async fire(timer: DueTimer): Promise<void> {
    let next: number | undefined;
    try {
      next = await this.transfer(timer.id);
    } catch (err) {
      this.kit.logger.warn({ err }, 'call recordings: a try failed before it started (the store?); again in a minute');
      next = this.now() + UNEXPECTED_RETRY_MS;
    }
    await this.kit.store.timers.advance(TIMER_KIND, timer, next);
    await this.kit.store.timers.release(TIMER_KIND, timer, this.owner);
  }

  /** One try: undefined once its share waits in the channel (or it is given up), else when to try again. */
  private async transfer(id: string): Promise<number | undefined> {
    const target = parseTimerId(id);
    if (!target || (await this.steps.done(stepOf(target, 'recording')))) return undefined;
    const job = parseJob(await this.steps.read(stepOf(target, 'recording-job')));
    if (!job) return undefined;
    if (await this.kit.pauses.reasonFor(job.teamId, job.channelId)) {
      await this.giveUp(job, 'the channel takes no posts (the bot was removed, or it is archived)', {}, 'info');
      return undefined;
    }
    const started = Date.now();
    try {
      if (!(await this.files.uploaded(stepOf(job, 'recording')))) {
        const slack = await this.kit.slack(job.teamId, 'routine');
        const { bytes } = await this.upload(slack, job);
        this.kit.logger.info(
          { channel: job.channelId, team: job.teamId, entry: job.entryId, bytes, ms: Date.now() - started },
          'call recording uploaded; its share waits for the channel',
        );
      }
      await this.bulk.add(job, SHARE_POST, { key: job.entryId, order: job.addedAt }, job.entryId);
      return undefined;
    } catch (err) {
      return this.failed(job, err);
    }
  }

  /** The share's turn in the channel: shared once (an earlier share whose answer was lost is looked up first). */
  private async shareWaiting(target: Pick<RecordingTarget, 'teamId' | 'channelId' | 'entryId'>, slack: WebClient) {
    const step = stepOf(target, 'recording');
    if (await this.steps.done(step)) return;
    const job = parseJob(await this.steps.read(stepOf(target, 'recording-job')));
    const fileId = job && (await this.files.uploaded(step));
    if (!job || !fileId) return;
    let outcome;
    try {
      outcome = await this.files.share(slack, step, fileId, job);
    } catch (err) {
      if (!isFileGone(slackErrorCode(err))) throw err;
      // Slack no longer has the upload (it was not shared in time): the bytes are sent again, then shared.
      await this.files.lost(step);
      await this.kit.store.timers.set(TIMER_KIND, timerId(job), this.now());
      this.kick();
      return;
    }
    await this.steps.record(stepOf(job, 'recording-job'), '');
    this.kit.logger.info(
      { channel: job.channelId, team: job.teamId, entry: job.entryId },
      outcome === 'found'
        ? "call recording found shared in its card's thread by an earlier try"
        : "call recording shared in its card's thread",
    );
  }

  /** Slack would not take the share (or it waited a day): the card keeps its link. */
  private async shareGivenUp(target: Pick<RecordingTarget, 'teamId' | 'channelId' | 'entryId'>, cause: string) {
    const job = parseJob(await this.steps.read(stepOf(target, 'recording-job')));
    if (job) await this.giveUp(job, 'the card keeps its link', { slackError: cause }, 'warn');
  }

  /** The recording's bytes into Slack (steps 1 and 2 of the external upload). */
  private async upload(slack: WebClient, job: RecordingJob): Promise<{ fileId: string; bytes: number }> {
    const abort = new AbortController();
    const deadline = setTimeout(() => abort.abort(), TRANSFER_MS);
    this.aborts.add(abort);
    let held = 0;
    try {
      const recording = await this.fetcher!.open(job.audioUrl, abort.signal);
      const { length, body } = await withLength(recording, (bytes) => {
        if (this.buffered + bytes > this.bufferBudget) throw new BufferBudgetFull();
        this.buffered += bytes;
        held += bytes;
      });
      // The recording's own failure (its cap, its host) is what to report when it ends the upload.
      let sourceFailure: unknown;
      const tracked = (async function* () {
        try {
          yield* body;
        } catch (err) {
          sourceFailure = err;
          throw err;
        }
      })();
      const file = { filename: `${job.name}.${recording.extension}`, length, body: tracked, signal: abort.signal };
      try {
        const fileId = await this.files.upload(slack, stepOf(job, 'recording'), file);
        return { fileId, bytes: length };
      } catch (err) {
        await recording.discard().catch(() => undefined);
        throw sourceFailure ?? err;
      }
    } finally {
      clearTimeout(deadline);
      this.buffered -= held;
      this.aborts.delete(abort);
    }
  }

  /** What a failed try means: when to try again, or undefined once given up. */
  private async failed(job: RecordingJob, err: unknown): Promise<number | undefined> {
    const now = this.now();
    if (this.stopped) return now;
    // Other recordings read whole fill the memory set aside for that: a turn later, no try counted.
    if (err instanceof BufferBudgetFull && now - job.addedAt < RETENTION_MS) return now + DEFER_MS;
    // Slack made it wait (its budget, a 429, Slack down): no try counts.
    const heals = this.kit.pace.retryDelayMs(err);
    if (heals !== undefined && now - job.addedAt < RETENTION_MS) return now + heals;
    const code = slackErrorCode(err);
    const detail = describe(err, job);
    const retry =
      err instanceof RecordingError
        ? err.retryable
        : err instanceof SlackUploadError || code === undefined || classOfSlackError(code) === 'unknown';
    if (retry && job.attempts < RETRY_MS.length) {
      const next = { ...job, attempts: job.attempts + 1 };
      await this.steps.record(stepOf(job, 'recording-job'), JSON.stringify(next));
      const waitMs = RETRY_MS[job.attempts]!;
      this.kit.logger.debug(
        { ...detail, err, attempts: next.attempts, retryInMs: waitMs },
        'call recording not copied yet; trying again',
      );
      return now + waitMs;
    }
    await this.giveUp(job, 'the card keeps its link', { ...detail, err, attempts: job.attempts + 1 }, 'warn');
    return undefined;
  }

  /** Marks the recording done (`result`: the file id, or why not) and forgets its URL (it may carry a signature). */
  private async finish(job: RecordingJob, result: string): Promise<void> {
    await this.steps.record(stepOf(job, 'recording'), result);
    await this.steps.record(stepOf(job, 'recording-job'), '');
  }

  /** One log line, and the recording marked done so nothing tries it again. */
  private async giveUp(job: RecordingJob, why: string, detail: object, level: 'info' | 'warn'): Promise<void> {
    await this.finish(job, 'not copied');
    this.kit.logger[level](
      { channel: job.channelId, team: job.teamId, entry: job.entryId, ...detail },
      `call recording not copied into Slack: ${why}`,
    );
  }
}

/** What to log about a failure: the problem and the host, never the recording's full URL. */
function describe(err: unknown, job: RecordingJob): Record<string, unknown> {
  const host = URL.canParse(job.audioUrl) ? new URL(job.audioUrl).host : undefined;
  if (err instanceof RecordingError) return { problem: err.problem, host, ...err.detail };
  if (err instanceof SlackUploadError) return { problem: `slack_${err.problem}`, ...err.detail };
  const code = slackErrorCode(err);
  return code ? { problem: 'slack', slackError: code } : { problem: 'unexpected' };
}

/**
 * The recording's length and bytes. Slack needs the length before the bytes: a host that declares none has its
 * recording read into memory first (counted against the cap as it arrives).
 */
async function withLength(
  recording: Recording,
  hold: (bytes: number) => void,
): Promise<{ length: number; body: AsyncIterable<Buffer> }> {
  let length = recording.length;
  let body = recording.body;
  if (length === undefined) {
    const chunks: Buffer[] = [];
    for await (const chunk of recording.body) {
      hold(chunk.length);
      chunks.push(chunk);
    }
    const whole = Buffer.concat(chunks);
    length = whole.length;
    body = Readable.from([whole]);
  }
  if (length === 0) {
    await recording.discard();
    throw new RecordingError('empty');
  }
  return { length, body };
}

/** The process holds as much of recordings read whole as it sets aside: this one waits its turn. */
class BufferBudgetFull extends Error {
  override name = 'BufferBudgetFull';
}

function stepOf(target: Pick<RecordingTarget, 'teamId' | 'entryId' | 'channelId'>, step: string): StepRef {
  return { teamId: target.teamId, entryId: target.entryId, channel: target.channelId, step };
}

/** The workspace first (`workspaceTimerId`), so uninstalling finds it. */
function timerId(target: RecordingTarget): string {
  return workspaceTimerId(target.teamId, target.channelId, target.entryId);
}

function parseTimerId(id: string): Pick<RecordingTarget, 'teamId' | 'channelId' | 'entryId'> | undefined {
  const [teamId, channelId, entryId] = workspaceTimerParts(id, 3) ?? [];
  return teamId === undefined || channelId === undefined || entryId === undefined
    ? undefined
    : { teamId, channelId, entryId };
}

function parseJob(raw: string | null): RecordingJob | undefined {
  if (!raw) return undefined;
  const job = JSON.parse(raw) as Partial<RecordingJob>;
  const texts = [job.teamId, job.channelId, job.entryId, job.threadTs, job.audioUrl, job.name, job.title, job.comment];
  if (texts.some((t) => typeof t !== 'string') || typeof job.addedAt !== 'number' || typeof job.attempts !== 'number')
    return undefined;
  return job as RecordingJob;
}
