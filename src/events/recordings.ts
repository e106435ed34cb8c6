/**
 * A call's recording copied into its card's thread (a card posted on its own; roll-ups keep their links): a
 * firing of the store's timers (src/app/timers.ts) fetches it (recording-fetch.ts) and streams it to Slack's
 * external upload (src/slack/external-upload.ts); the share, a post, waits in the channel's bulk lane. Nothing
 * waits for it, each step is remembered (never shared twice), at most `SLOTS` transfers run at once, and a
 * recording that cannot be fetched leaves the card's link and one log line naming the host (never the URL).
 */
import { Readable } from 'node:stream';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Config } from '../config.js';
import { SlackUploadError, type FileShares } from '../slack/external-upload.js';
import { classOfSlackError, isFileGone } from '../delivery/slack-errors.js';
import { slackErrorCode } from '../slack/post.js';
import { workspaceTimerId, workspaceTimerParts, type ChannelRef } from '../store/index.js';
import { parseStored } from '../store/stored-json.js';
import type { Timers } from '../app/timers.js';
import type { CallCompleted } from './events.js';
import { RecordingError, RecordingFetcher } from './recording-fetch.js';
import { renderRecordingShare } from './render/index.js';
import { RETENTION_MS, type PostContext } from '../delivery/post-context.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';
import { StepLog, type StepRef } from '../delivery/steps.js';

/** `stallMs`: how long a transfer waits on its host for `MIN_PROGRESS_BYTES` before the try fails (20 s). */
export type RecordingOptions = { stallMs?: number };

/** The recording of one call in one channel (its steps are remembered under the call's queue entry). */
type RecordingRef = ChannelRef & { entryId: string };
/** Where a recording goes: the card's thread (`threadTs`: the card's ts). */
export type RecordingTarget = RecordingRef & { threadTs: string };

/** A transfer as first written (the target, the file's texts); `attempts`: failed tries so far. */
const recordingJobSchema = z.object({
  teamId: z.string(),
  channelId: z.string(),
  entryId: z.string(),
  threadTs: z.string(),
  audioUrl: z.string(),
  name: z.string(),
  title: z.string(),
  comment: z.string(),
  addedAt: z.number(),
  attempts: z.number(),
});
type RecordingJob = z.infer<typeof recordingJobSchema>;
/** The kind of the transfer's timer, and of the share's report in its channel's outbox. */
const KIND = 'call-recording';
/** Transfers at the same time in a process: all workspaces together, and one workspace's. */
const SLOTS = { total: 8, perWorkspace: 2 };
/** A whole transfer (download and upload together); a slower one is a timeout, tried again. */
const TRANSFER_MS = 5 * 60_000;
/** What a host must send per `stallMs` waiting on it: 3 KB/s by default, far below any file server, above a drip. */
const MIN_PROGRESS_BYTES = 64 * 1024;
/** While recordings read whole fill the memory set aside for them, how long before this one looks again. */
const DEFER_MS = 5_000;
/** Waits after the 1st, 2nd and 3rd failed try; the 4th gives up. */
const RETRY_MS = [15_000, 60_000, 180_000];

export class CallRecordings {
  /** None when `RECORDING_HOSTS=off`: cards keep their links. */
  private readonly fetcher: RecordingFetcher | undefined;
  private readonly steps: StepLog;
  /** Bytes of recordings read whole (hosts that send no length) held now, of `bufferBudget`. */
  private buffered = 0;
  /** Two largest recordings: what reading whole could take before there were slots per workspace. */
  private readonly bufferBudget: number;

  constructor(
    private readonly context: PostContext,
    private readonly bulk: BulkPosts,
    private readonly files: FileShares,
    private readonly timers: Timers,
    settings: Config['recordings'],
    options: RecordingOptions = {},
  ) {
    this.steps = new StepLog(context.store, (err) => context.pace.judge(err));
    bulk.on(KIND, {
      post: (at, body, { client }) => this.shareWaiting({ ...at, entryId: String(body) }, client),
      // Slack would not take the share (or it waited a day): the card keeps its link.
      gaveUp: async (at, body, cause) => {
        const job = await this.jobOf({ ...at, entryId: String(body) });
        if (job) await this.giveUp(job, 'the card keeps its link', { slackError: cause }, 'warn');
      },
    });
    this.bufferBudget = 2 * settings.maxBytes;
    if (settings.hosts === 'off') return;
    const minProgress = { bytes: MIN_PROGRESS_BYTES, withinMs: options.stallMs ?? 20_000 };
    this.fetcher = new RecordingFetcher({ hosts: settings.hosts, maxBytes: settings.maxBytes, minProgress });
    timers.on(KIND, (timer, _now, stop) => this.transfer(timer.id, stop), SLOTS);
  }

  /** After a call's card and transcript are posted: its recording is queued (once) for the card's thread. */
  async add(to: RecordingTarget, call: CallCompleted): Promise<void> {
    if (!this.fetcher || !call.audioUrl) return;
    if (await this.steps.done(stepOf(to, 'recording'))) return;
    const job: RecordingJob = {
      ...to,
      audioUrl: call.audioUrl,
      ...renderRecordingShare(call),
      addedAt: this.context.store.now(),
      attempts: 0,
    };
    // Kept as first written: a call handed on again does not reset its tries.
    await this.steps.once(stepOf(to, 'recording-job'), () => Promise.resolve(JSON.stringify(job)));
    await this.dueNow(to);
  }

  /** Ends with the timers' transfers (stopped before): the connections to recording hosts close. */
  async stop(): Promise<void> {
    await this.fetcher?.close();
  }

  /** The recording's job as first written (tries counted); undefined once done (copied or given up) or unreadable. */
  private async jobOf(target: RecordingRef): Promise<RecordingJob | undefined> {
    if (await this.steps.done(stepOf(target, 'recording'))) return undefined;
    return parseStored(recordingJobSchema, await this.steps.read(stepOf(target, 'recording-job')));
  }

  /** Due now, and looked for now (not at the timers' next tick). */
  private async dueNow(target: RecordingRef): Promise<void> {
    // The workspace first: uninstalling finds it.
    const id = workspaceTimerId(target.teamId, target.channelId, target.entryId);
    await this.context.store.timers.set(KIND, id, this.context.store.now());
    void this.timers.runDue(KIND);
  }

  /** One try: undefined once its share waits in the channel (or it is given up), else when to try again. */
  private async transfer(id: string, stop: AbortSignal): Promise<number | undefined> {
    const [teamId, channelId, entryId] = workspaceTimerParts(id, 3) ?? [];
    const job =
      entryId === undefined ? undefined : await this.jobOf({ teamId: teamId!, channelId: channelId!, entryId });
    if (!job) return undefined;
    if (await this.context.pauses.get(job.teamId, job.channelId)) {
      await this.giveUp(job, 'the channel takes no posts (the bot was removed, or it is archived)', {}, 'info');
      return undefined;
    }
    const started = Date.now();
    try {
      if (!(await this.files.uploaded(stepOf(job, 'recording')))) {
        const slack = await this.context.slack(job.teamId, 'routine');
        const bytes = await this.upload(slack, job, stop);
        this.context.logger.info(
          { ...logged(job), bytes, ms: Date.now() - started },
          'call recording uploaded; its share waits for the channel',
        );
      }
      await this.bulk.add(job, KIND, { key: job.entryId, order: job.addedAt }, job.entryId);
      return undefined;
    } catch (err) {
      return this.failed(job, err, stop);
    }
  }

  /** The share's turn in the channel: shared once (an earlier share whose answer was lost is looked up first). */
  private async shareWaiting(target: RecordingRef, slack: WebClient) {
    const step = stepOf(target, 'recording');
    const job = await this.jobOf(target);
    const fileId = job && (await this.files.uploaded(step));
    if (!job || !fileId) return;
    const outcome = await this.files.share(slack, step, fileId, job).catch(async (err: unknown) => {
      if (!isFileGone(slackErrorCode(err))) throw err;
      // Slack no longer has the upload (it was not shared in time): the bytes are sent again, then shared.
      await this.files.lost(step);
      await this.dueNow(job);
    });
    if (!outcome) return;
    await this.steps.record(stepOf(job, 'recording-job'), '');
    this.context.logger.info(
      logged(job),
      outcome === 'found'
        ? "call recording found shared in its card's thread by an earlier try"
        : "call recording shared in its card's thread",
    );
  }

  /** The recording's bytes into Slack (steps 1 and 2 of the external upload); how many. */
  private async upload(slack: WebClient, job: RecordingJob, stop: AbortSignal) {
    const abort = new AbortController();
    const deadline = setTimeout(() => abort.abort(), TRANSFER_MS);
    const signal = AbortSignal.any([stop, abort.signal]);
    let held = 0;
    try {
      const recording = await this.fetcher!.open(job.audioUrl, signal);
      let { length, body } = recording;
      // Slack needs the length before the bytes: a host that declares none has its recording read into memory.
      if (length === undefined) {
        const chunks: Buffer[] = [];
        for await (const chunk of body) {
          if (this.buffered + chunk.length > this.bufferBudget) throw new BufferBudgetFull();
          this.buffered += chunk.length;
          held += chunk.length;
          chunks.push(chunk);
        }
        const whole = Buffer.concat(chunks);
        [length, body] = [whole.length, Readable.from([whole])];
      }
      if (length === 0) {
        await recording.discard();
        throw new RecordingError('empty');
      }
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
      const file = { filename: `${job.name}.${recording.extension}`, length, body: tracked, signal };
      try {
        await this.files.upload(slack, stepOf(job, 'recording'), file);
        return length;
      } catch (err) {
        await recording.discard().catch(() => undefined);
        throw sourceFailure ?? err;
      }
    } finally {
      clearTimeout(deadline);
      this.buffered -= held;
    }
  }

  /** What a failed try means: when to try again, or undefined once given up. */
  private async failed(job: RecordingJob, err: unknown, stop: AbortSignal): Promise<number | undefined> {
    const now = this.context.store.now();
    if (stop.aborted) return now;
    // Other recordings read whole fill the memory set aside for that, or Slack made it wait (its budget, a 429,
    // Slack down): a turn later, no try counted.
    if (now - job.addedAt < RETENTION_MS) {
      if (err instanceof BufferBudgetFull) return now + DEFER_MS;
      const heals = this.context.pace.judge(err).delayMs;
      if (heals !== undefined) return now + heals;
    }
    const code = slackErrorCode(err);
    const detail = describe(err, job);
    const retry =
      err instanceof RecordingError
        ? err.retryable
        : err instanceof SlackUploadError || code === undefined || classOfSlackError(code) === 'unknown';
    if (retry && job.attempts < RETRY_MS.length) {
      const attempts = job.attempts + 1;
      await this.steps.record(stepOf(job, 'recording-job'), JSON.stringify({ ...job, attempts }));
      const retryInMs = RETRY_MS[job.attempts]!;
      this.context.logger.debug({ ...detail, err, attempts, retryInMs }, 'call recording not copied yet; trying again');
      return now + retryInMs;
    }
    await this.giveUp(job, 'the card keeps its link', { ...detail, err, attempts: job.attempts + 1 }, 'warn');
    return undefined;
  }

  /** One log line; the recording marked done and its URL forgotten (it may carry a signature). */
  private async giveUp(job: RecordingJob, why: string, detail: object, level: 'info' | 'warn'): Promise<void> {
    await this.steps.record(stepOf(job, 'recording'), 'not copied');
    await this.steps.record(stepOf(job, 'recording-job'), '');
    this.context.logger[level]({ ...logged(job), ...detail }, `call recording not copied into Slack: ${why}`);
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

/** The process holds as much of recordings read whole as it sets aside: this one waits its turn. */
class BufferBudgetFull extends Error {
  override name = 'BufferBudgetFull';
}

function logged(job: RecordingRef): Record<string, string> {
  return { channel: job.channelId, team: job.teamId, entry: job.entryId };
}

function stepOf(target: RecordingRef, step: string): StepRef {
  return { teamId: target.teamId, entryId: target.entryId, channel: target.channelId, step };
}
