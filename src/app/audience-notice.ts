/**
 * The one post that tells a channel its customers' numbers and e-mails are masked from now on: once per cause
 * (an idempotency mark and key, so a retried event or a second replica posts nothing more), counts and never
 * names (a notice must not page anyone), with how an admin shows them in full again.
 */
import type { WebClient } from '@slack/web-api';
import { createHash } from 'node:crypto';
import type { Logger } from '../logger.js';
import { context, message, section } from '../slack/blocks.js';
import type { PostLedger } from '../delivery/post-ledger.js';
import type { Store } from '../store/index.js';
import type { Workspace } from './membership.js';

/** The notice's mark outlives any retry of the event that caused it. */
const NOTICE_MARK_TTL_MS = 24 * 3600_000;
/** Tries of one notice when Slack's pace says wait, and the longest wait between two. */
const NOTICE_ATTEMPTS = 4;
const MAX_NOTICE_WAIT_MS = 10_000;

/**
 * `joined`: someone arrived (or changed) and the channel showed customers in full until now; `found`: the bot
 * has just learned who is in a channel it started posting in.
 */
type MaskedBecause = 'joined' | 'found';

export class AudienceNotices {
  constructor(
    private readonly store: Pick<Store, 'keys'>,
    private readonly posts: PostLedger,
    /** When a failed post may go again (`SlackPace.retryDelayMs`): undefined when waiting cannot help. */
    private readonly retryDelayMs: (err: unknown) => number | undefined,
    private readonly logger: Logger,
  ) {}

  /** `who`: the audience in words (`audienceWords`); `cause`: what this notice is the one notice of. */
  async tellMasked(
    client: WebClient,
    ws: Workspace,
    channelId: string,
    who: string,
    because: MaskedBecause,
    cause: string,
  ): Promise<void> {
    const id = `${channelId}:${cause}`;
    const text =
      because === 'joined'
        ? `🔒 ${who} can now read this channel, so from now on the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).`
        : `🔒 This channel has ${who} in it, so the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).`;
    const payload = message(text, [
      section(text),
      context(
        'If everyone here may see customer details, an admin can run `/campaign subscribe &lt;campaign&gt; customers:full` here to show them in full again.',
      ),
    ]);
    const once = {
      teamId: ws.teamId,
      mark: this.store.keys.dedup(ws.teamId, 'audience-notice', id),
      key: createHash('sha256').update(`audience:${id}`).digest('base64url').slice(0, 22),
      ttlMs: NOTICE_MARK_TTL_MS,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.posts.post(client, { channel: channelId }, payload, once);
        return;
      } catch (err) {
        // Slack (or its pace here) said when to try again: the notice waits that long, a few times at most.
        const delayMs = this.retryDelayMs(err);
        if (delayMs === undefined || attempt >= NOTICE_ATTEMPTS) {
          // The masking holds whether or not the notice went out.
          this.logger.warn(
            { err, team: ws.teamId, channel: channelId },
            'could not tell a channel its posts are masked now',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, MAX_NOTICE_WAIT_MS)));
      }
    }
  }
}
