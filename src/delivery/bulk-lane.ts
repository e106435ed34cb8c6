/**
 * What can always wait: the bulk lane of a channel's outbox. A timer's report, a recording's share or a notice waits
 * behind the channel's customers and calls (or in the urgent lane: what a person's action in a thread makes). Each
 * kind registers how it is posted (`on`); a report left twice (its firing tried again) waits once.
 */
import { createHash } from 'node:crypto';
import type { ChannelRef, WaitingItem } from '../store/index.js';
import { message, section } from '../slack/blocks.js';
import { postMessage } from '../slack/post.js';
import { withTraceNow } from '../util/spans.js';
import type { ChannelScheduler, LaneHandler } from './scheduler.js';
import type { PostContext } from './post-context.js';
import type { BulkPoster, BulkPosts, Notice, Report } from './bulk-posts.js';

/** The kind of a notice (its name kept from when notices went to people only: items may be waiting under it). */
const NOTICE = 'person-notice';

interface BulkItem {
  kind: string;
  body: unknown;
  enqueuedAt: number;
}

export class BulkLane implements LaneHandler, BulkPosts {
  private readonly posters = new Map<string, BulkPoster>();

  constructor(
    private readonly context: PostContext,
    private readonly scheduler: Pick<ChannelScheduler, 'added'>,
  ) {
    this.on(NOTICE, {
      post: async (at, body, slack) => {
        const { title, text } = body as Notice;
        try {
          await postMessage(slack.client, { channel: at.channelId }, message(title, [section(text)]));
        } catch (err) {
          if (slack.waits(err)) throw err; // nothing was sent: it waits its turn again
          // Not looked up and not sent again (the app may not read direct messages): at most once, never twice.
          this.context.logger.warn({ err, team: at.teamId, notice: title }, 'could not post a notice');
        }
      },
    });
  }

  notify(at: ChannelRef, report: Report, notice: Notice): Promise<void> {
    return this.add(at, NOTICE, report, notice);
  }

  on(kind: string, poster: BulkPoster): void {
    if (this.posters.has(kind)) throw new Error(`reports of kind ${kind} have a poster already`);
    this.posters.set(kind, poster);
  }

  async add(at: ChannelRef, kind: string, report: Report, body: unknown): Promise<void> {
    const json = JSON.stringify(withTraceNow<BulkItem>({ kind, body, enqueuedAt: Date.now() }), keepBigInts);
    await this.context.store.outbox.add(at, report.lane ?? 'bulk', { id: reportId(kind, report), json });
    this.scheduler.added(at);
  }

  async postNext(at: ChannelRef, items: WaitingItem[]): Promise<number | undefined> {
    const first = items[0]!;
    const waiting = read(first);
    const poster = waiting && this.posters.get(waiting.kind);
    if (poster) {
      const client = await this.context.slack(at.teamId, first.lane === 'urgent' ? 'urgent' : 'routine');
      await poster.post(at, waiting.body, { client, waits: (err) => this.context.pace.judge(err).class === 'wait' });
    } else {
      this.context.logger.error({ channel: at.channelId, item: first.id }, 'a waiting report does not read; dropped');
    }
    await this.context.store.outbox.remove(at, [first.id]);
    return undefined;
  }

  /** A report Slack will not take is logged and dropped (its kind told): its timer's next firing makes the next one. */
  async giveUp(at: ChannelRef, items: WaitingItem[], cause: string, attempts: number): Promise<void> {
    for (const item of items) {
      const waiting = read(item);
      this.context.logger.error(
        { team: at.teamId, channel: at.channelId, report: waiting?.kind, cause, attempts },
        'a report was given up: Slack will not take it',
      );
      if (waiting) await this.posters.get(waiting.kind)?.gaveUp?.(at, waiting.body, cause);
    }
    const ids = items.map((i) => i.id);
    await this.context.store.outbox.remove(at, ids);
  }

  /** Whether the item is a report of a kind (in whichever lane it waits). */
  owns(item: WaitingItem): boolean {
    return read(item) !== undefined;
  }
}

/** An id that sorts like a queue entry id (`<ms>-<seq>`) and is the same for the same report of the same firing. */
function reportId(kind: string, report: { key: string; order: number }): string {
  const seq = createHash('sha256').update(`${kind}\n${report.key}`).digest().readUInt32BE(0);
  return `${Math.max(0, Math.trunc(report.order))}-${seq}`;
}

/** The platform's 64-bit figures (quota milliseconds) are bigints: kept as `{"$bigint": "…"}`. */
function keepBigInts(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? { $bigint: value.toString() } : value;
}

function readBigInts(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Object.keys(value).length !== 1) return value;
  const text = (value as { $bigint?: unknown }).$bigint;
  return typeof text === 'string' && /^-?\d+$/.test(text) ? BigInt(text) : value;
}

function read(item: WaitingItem): BulkItem | undefined {
  try {
    const raw = JSON.parse(item.json, readBigInts) as Partial<BulkItem>;
    return typeof raw.kind === 'string' && typeof raw.enqueuedAt === 'number' ? (raw as BulkItem) : undefined;
  } catch {
    return undefined;
  }
}
