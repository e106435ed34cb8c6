/**
 * The one post that tells a channel its customers' numbers and e-mails are masked from now on: once per cause
 * (an idempotency mark and key, so a retried event or a second replica posts nothing more), counts and never
 * names (a notice must not page anyone), with how an admin shows them in full again. It waits in the channel's
 * outbox (bulk lane) and goes out at Slack's pace, judged as every post.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../logger.js';
import { context, message, section } from '../slack/blocks.js';
import type { BulkPosts } from '../delivery/bulk-posts.js';
import type { IdempotentPosts } from '../delivery/idempotent-posts.js';
import type { Store } from '../store/index.js';
import type { Workspace } from './membership.js';

/** The notice's mark outlives any wait of the notice in its channel's outbox, and any retry of its cause. */
const NOTICE_MARK_TTL_MS = 3 * 24 * 3600_000;
/** The bulk-lane kind of the notice. */
const AUDIENCE_NOTICE = 'audience-notice';

/**
 * `joined`: someone arrived (or changed) and the channel showed customers in full until now; `found`: the bot
 * has just learned who is in a channel it started posting in.
 */
type MaskedBecause = 'joined' | 'found';

interface WaitingNotice {
  who: string;
  because: MaskedBecause;
  cause: string;
}

export class AudienceNotices {
  /** Where the notices wait for their channel (set once the outbox's lanes are made). */
  private bulk: BulkPosts | undefined;

  constructor(
    private readonly store: Pick<Store, 'keys'>,
    private readonly posts: IdempotentPosts,
    private readonly logger: Logger,
  ) {}

  /** The notices wait in their channel's bulk lane, and are posted from there, at Slack's pace. */
  postIn(bulk: BulkPosts): void {
    this.bulk = bulk;
    bulk.on(AUDIENCE_NOTICE, {
      post: async (at, body, slack) => {
        const { who, because, cause } = body as WaitingNotice;
        await this.posts.post(slack.client, { channel: at.channelId }, render(who, because), {
          teamId: at.teamId,
          mark: this.store.keys.dedup(at.teamId, 'audience-notice', `${at.channelId}:${cause}`),
          key: createHash('sha256').update(`audience:${at.channelId}:${cause}`).digest('base64url').slice(0, 22),
          ttlMs: NOTICE_MARK_TTL_MS,
        });
      },
    });
  }

  /**
   * `who`: the audience in words (`audienceWords`); `cause`: what this notice is the one notice of. The masking
   * holds whether or not the notice goes out.
   */
  async tellMasked(
    ws: Workspace,
    channelId: string,
    who: string,
    because: MaskedBecause,
    cause: string,
  ): Promise<void> {
    const notice: WaitingNotice = { who, because, cause };
    await this.bulk?.add({ teamId: ws.teamId, channelId }, AUDIENCE_NOTICE, { key: cause, order: Date.now() }, notice);
  }
}

function render(who: string, because: MaskedBecause) {
  const text =
    because === 'joined'
      ? `🔒 ${who} can now read this channel, so from now on the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).`
      : `🔒 This channel has ${who} in it, so the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).`;
  return message(text, [
    section(text),
    context(
      'If everyone here may see customer details, an admin can run `/campaign subscribe &lt;campaign&gt; customers:full` here to show them in full again.',
    ),
  ]);
}
