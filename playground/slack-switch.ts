/**
 * The playground's Slack switch, beside the platform's: how the Slack stand-in treats the bot from now on, and
 * what each channel lets it do — so a person sees what users would see when Slack limits, fails or refuses
 * (channels paused and their admin told, `/campaign failed` with Retry and Resume, calls rolled up).
 *
 * - `rate-limited`: Slack's published limits held strictly — chat.postMessage one a second per channel with no
 *   burst, and a workspace-wide posting limit (documented without a figure; 20 a minute here), on top of the
 *   limits the stand-in always applies (https://docs.slack.dev/apis/web-api/rate-limits).
 * - `down`: every Web API call answered HTTP 503, nothing done; Slack delivers nothing to the app either.
 * - `failing`: HTTP 200 `{ok:false}` with `service_unavailable`, one of chat.postMessage's documented transient
 *   errors (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors").
 * - `answers-lost`: a third of the posts carried out but their answers lost (the bot looks them up).
 * Per channel: the bot removed (`not_in_channel`), the channel archived (`is_archived`) or read-only
 * (`restricted_action_read_only_channel`).
 */
import type { FakeSlack } from '../fakes/slack/index.js';

export const SLACK_MODES = ['normal', 'rate-limited', 'down', 'failing', 'answers-lost'] as const;
export type SlackMode = (typeof SLACK_MODES)[number];

export const CHANNEL_STATES = ['normal', 'bot-removed', 'archived', 'read-only'] as const;
export type ChannelState = (typeof CHANNEL_STATES)[number];

/** Posts of the whole workspace a minute while `rate-limited` (Slack gives no figure for its workspace limit). */
const WORKSPACE_POSTS_A_MINUTE = 20;
/** Methods that answer `service_unavailable` while `failing`: every one the bot calls. */
const FAILING_METHODS = [
  'chat.postMessage',
  'chat.update',
  'chat.delete',
  'chat.postEphemeral',
  'chat.getPermalink',
  'reactions.add',
  'reactions.remove',
  'views.open',
  'views.update',
  'views.push',
  'views.publish',
  'users.info',
  'users.conversations',
  'conversations.open',
  'conversations.info',
  'conversations.replies',
  'conversations.history',
  'files.info',
  'files.getUploadURLExternal',
  'files.completeUploadExternal',
];
/** The share of posts whose answer is lost while `answers-lost` (seeded: the same posts lose theirs each run). */
const LOST_SHARE = 0.33;

export class SlackSwitch {
  private current: SlackMode = 'normal';
  private readonly channels = new Map<string, ChannelState>();

  constructor(private readonly slack: FakeSlack) {}

  get mode(): SlackMode {
    return this.current;
  }

  channelState(id: string): ChannelState {
    return this.channels.get(id) ?? 'normal';
  }

  setMode(mode: SlackMode): void {
    this.current = mode;
    this.apply();
  }

  setChannel(id: string, state: ChannelState): void {
    this.channels.set(id, state);
    this.apply();
  }

  /** Why Slack would not deliver what the person does to the app now, or undefined when it would. */
  refusal(channel: string): string | undefined {
    if (this.current === 'down')
      return 'Slack is down (HTTP 503): it would not deliver this to the app. Switch Slack back to normal.';
    if (this.channelState(channel) === 'archived')
      return 'This channel is archived: nobody can post in it. Switch it back to normal in the Slack switch.';
    return undefined;
  }

  /** The stand-in's faults rebuilt from the switch: one place, so switching back heals exactly. */
  private apply(): void {
    this.slack.clearFaults();
    switch (this.current) {
      case 'rate-limited':
        this.slack.channelRateLimit(1);
        this.slack.workspacePostLimit(WORKSPACE_POSTS_A_MINUTE);
        break;
      case 'down':
        this.slack.setDown(true);
        break;
      case 'failing':
        for (const method of FAILING_METHODS) this.slack.failMethod(method, 'service_unavailable');
        break;
      case 'answers-lost':
        this.slack.loseAnswers({ method: 'chat.postMessage', share: LOST_SHARE, seed: 7 });
        break;
      case 'normal':
        break;
    }
    // Channels set back to normal get the bot back (clearFaults already lifted restrictions and archiving).
    for (const [id, state] of this.channels) {
      const known = this.slack.channel(id);
      if (!known) continue;
      this.slack.addChannel({ ...known, is_member: state !== 'bot-removed' });
      if (state === 'archived') this.slack.archiveChannel(id);
      if (state === 'read-only') this.slack.restrictChannel(id, 'read-only');
    }
  }
}
