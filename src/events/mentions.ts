/**
 * Who a post mentions: the `notify:` option of routes and outcome alerts. A slash command carries the people and
 * user groups picked from Slack's autocomplete escaped (manifest `should_escape: true`): `<@U123|ada>`,
 * `<!subteam^S123|@sales>` (https://api.slack.com/interactivity/slash-commands, "Escape channels, users, and
 * links sent to your app"). Kept as ids (`U…`/`W…` people, `S…` user groups), shown as Slack mentions.
 */
import { escapeMrkdwn, truncate } from '../slack/blocks.js';

const MENTION = /^<(?:@([UW][A-Z0-9]{1,30})|!subteam\^(S[A-Z0-9]{1,30}))(?:\|[^<>]{0,100})?>$/;
const MAX_MENTIONS = 10;

/** `notify:` values (after any given before) → ids, or the sentence saying what to type instead. */
export function parseMentions(
  raw: string,
  before: readonly string[] = [],
): { ok: true; ids: string[] } | { ok: false; sentence: string } {
  const ids = [...before];
  for (const part of (raw.match(/<[^<>]*>?|[^,<]+/g) ?? []).map((p) => p.trim()).filter(Boolean)) {
    const m = MENTION.exec(part);
    if (m) {
      ids.push(m[1] ?? m[2]!);
      continue;
    }
    return {
      ok: false,
      sentence: part.startsWith('@')
        ? `\`notify:\` needs the person or user group picked from Slack’s list: type \`@\`, choose them as Slack suggests them (the name turns into a mention), then send the command — ${shown(part)} typed out is only text, and Slack doesn’t tell me who it is.`
        : `\`notify:\` takes people or user groups mentioned with \`@\` (picked from Slack’s list), separated by commas, e.g. \`notify:@sales\`; ${shown(part)} is not one.`,
    };
  }
  if (ids.length === before.length)
    return {
      ok: false,
      sentence: '`notify:` needs someone to mention, e.g. `notify:@sales` (picked from Slack’s list).',
    };
  const unique = [...new Set(ids)];
  if (unique.length > MAX_MENTIONS)
    return { ok: false, sentence: `\`notify:\` takes at most ${MAX_MENTIONS} people or user groups.` };
  return { ok: true, ids: unique };
}

/** A stored id as a Slack mention. */
function mention(id: string): string {
  return id.startsWith('S') ? `<!subteam^${escapeMrkdwn(id)}>` : `<@${escapeMrkdwn(id)}>`;
}

/** The mentions of these ids, space-separated ('' for none). */
export function mentionsOf(ids: readonly string[] | undefined): string {
  return (ids ?? []).map(mention).join(' ');
}

function shown(text: string): string {
  return `\`${escapeMrkdwn(truncate(text.replace(/`/g, ''), 40))}\``;
}
