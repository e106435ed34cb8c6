/**
 * Links that stay on the page. The bot links to places that exist only in real Slack or on the real platform:
 * a thread's permalink (`chat.getPermalink`, e.g. "open thread" in `/campaign handoffs`), a call's recording, a
 * cloned voice's preview. In the playground those point nowhere (or off the machine), so the page opens them
 * itself: a permalink of the stand-in's workspace opens that thread in the side pane, and a recording or a
 * preview plays in the page's audio player, from the playground's own routes.
 */
import { SAMPLE_RECORDINGS_ORIGIN, VOICE_PREVIEWS_BASE } from '../fakes/platform/index.js';

export type LocalTarget =
  { kind: 'thread'; channel: string; ts: string } | { kind: 'audio'; src: string; title: string };

/** Where a link of the bot goes inside the page, or undefined for a link that leaves it. */
export type LocalTargets = (href: string) => LocalTarget | undefined;

/** What `/playground/media/<kind>/<name>` serves: the simulator's call recording, or a voice's first sample. */
export type MediaKind = 'recording' | 'voice';

const SAFE_NAME = /^[\w.-]{1,120}$/;

/**
 * `slackDomain`: the stand-in's team domain (permalinks are `https://<domain>.slack.com/archives/<C>/p<ts>`);
 * `recordingsUrl`: where the simulator serves its calls' recordings.
 */
export function localTargets(opts: { slackDomain: string; recordingsUrl: string }): LocalTargets {
  const recordingBases = [`${opts.recordingsUrl}/`, `${SAMPLE_RECORDINGS_ORIGIN}/`];
  return (href) => {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return undefined;
    }
    if (url.protocol === 'https:' && url.host === `${opts.slackDomain}.slack.com`) return permalinkTarget(url);
    const plain = `${url.origin}${url.pathname}`;
    const recording = recordingBases.find((base) => plain.startsWith(base));
    if (recording) {
      const name = plain.slice(recording.length);
      return SAFE_NAME.test(name) ? { kind: 'audio', src: mediaPath('recording', name), title: name } : undefined;
    }
    if (plain.startsWith(VOICE_PREVIEWS_BASE)) {
      const voice = /^([\w.-]{1,80})\/preview\.mp3$/.exec(plain.slice(VOICE_PREVIEWS_BASE.length))?.[1];
      return voice ? { kind: 'audio', src: mediaPath('voice', voice), title: `${voice} preview` } : undefined;
    }
    return undefined;
  };
}

function mediaPath(kind: MediaKind, name: string): string {
  return `/playground/media/${kind}/${encodeURIComponent(name)}`;
}

/**
 * `/archives/C123/p1700000000123456[?thread_ts=1700000000.000100&cid=C123]` → the thread (a reply's permalink
 * names its thread; a top-level message is its own thread's parent).
 */
function permalinkTarget(url: URL): LocalTarget | undefined {
  const m = /^\/archives\/([CGD][A-Z0-9]{2,20})\/p(\d{10})(\d{6})$/.exec(url.pathname);
  if (!m) return undefined;
  const threadTs = url.searchParams.get('thread_ts');
  const ts = threadTs && /^\d{10}\.\d{6}$/.test(threadTs) ? threadTs : `${m[2]}.${m[3]}`;
  return { kind: 'thread', channel: m[1]!, ts };
}

/** The attributes the page acts on (page/links.js), instead of an href that would leave it. */
export function localLinkAttributes(target: LocalTarget): Record<string, string> {
  return target.kind === 'thread'
    ? { 'data-goto-channel': target.channel, 'data-goto-thread': target.ts, title: 'Opens the thread here' }
    : { 'data-audio-src': target.src, 'data-audio-title': target.title, title: 'Plays here' };
}
