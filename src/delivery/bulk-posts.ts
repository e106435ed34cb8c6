/** What the features that post on their own see of the bulk lane (bulk-lane.ts): types only, not the scheduler. */
import type { WebClient } from '@slack/web-api';
import type { ChannelRef } from '../store/index.js';

/** How one kind of report is posted when its turn comes. */
export interface BulkPoster {
  /** Posts the report left as `body`, throwing Slack's refusals; `waits(err)`: Slack only asks to wait (nothing done). */
  post(at: ChannelRef, body: unknown, slack: { client: WebClient; waits(err: unknown): boolean }): Promise<void>;
  /** Slack would not take it, or it waited longer than a day (`cause`): what the kind does then, past a log line. */
  gaveUp?(at: ChannelRef, body: unknown, cause: string): Promise<void>;
}

/** What the features that post reports see of the lane. */
export interface BulkPosts {
  /** Registers how reports of `kind` are posted (one poster a kind). */
  on(kind: string, poster: BulkPoster): void;
  /** Parks a report in the channel's bulk lane (or `urgent`); the same `key` and `order` leave it once. */
  add(at: ChannelRef, kind: string, report: Report, body: unknown): Promise<void>;
  /** Leaves a notice for a channel, or a person's direct message (their user id as `channelId`), like any post. */
  notify(at: ChannelRef, report: Report, notice: Notice): Promise<void>;
}

/** A notice waiting for its turn: its fallback text (the notification) and its one sentence. */
export interface Notice {
  title: string;
  text: string;
}

/** Names a report (`key`: a digest's slot…; `order`: when its firing was due) and where it waits (bulk unless said). */
export interface Report {
  key: string;
  order: number;
  lane?: 'urgent' | 'bulk';
}
