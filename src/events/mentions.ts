/**
 * Who a post mentions: the `notify:` option of routes and outcome alerts. A slash command carries the people and
 * user groups picked from Slack's autocomplete escaped (manifest `should_escape: true`): `<@U123|ada>`,
 * `<!subteam^S123|@sales>` (https://api.slack.com/interactivity/slash-commands, "Escape channels, users, and
 * links sent to your app"). Kept as ids (`U…`/`W…` people, `S…` user groups), shown as Slack mentions in the
 * posts meant to page them; with the name Slack gave beside each id (`@sales`, `ada`), which is how setup
 * confirmations, listings and help name them without paging anyone (`namesOf`).
 */
import { escapeMrkdwn, truncate } from '../slack/blocks.js';

const MENTION = /^<(?:@([UW][A-Z0-9]{1,30})|!subteam\^(S[A-Z0-9]{1,30}))(?:\|([^<>]{0,100}))?>$/;
const MAX_MENTIONS = 10;

/** The name Slack gave beside each mentioned id (a user group's handle `@sales`, a person's name `ada`). */
export type MentionNames = Record<string, string>;

/**
 * `notify:` values (after any given before) → ids and the names Slack gave them, or the sentence saying what to
 * type instead.
 */
export function parseMentions(
  raw: string,
  before: readonly string[] = [],
): { ok: true; ids: string[]; names: MentionNames } | { ok: false; sentence: string } {
  const ids = [...before];
  const names: MentionNames = {};
  for (const part of (raw.match(/<[^<>]*>?|[^,<]+/g) ?? []).map((p) => p.trim()).filter(Boolean)) {
    const m = MENTION.exec(part);
    if (m) {
      const id = m[1] ?? m[2]!;
      ids.push(id);
      const name = m[3]?.trim();
      if (name) names[id] = name;
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
  return { ok: true, ids: unique, names };
}

/** A stored id as a Slack mention. */
function mention(id: string): string {
  return id.startsWith('S') ? `<!subteam^${escapeMrkdwn(id)}>` : `<@${escapeMrkdwn(id)}>`;
}

/** The mentions of these ids, space-separated ('' for none): for the posts meant to page them. */
export function mentionsOf(ids: readonly string[] | undefined): string {
  return (ids ?? []).map(mention).join(' ');
}

/**
 * These ids named without paging anyone ('' for none), for confirmations and listings: the name Slack gave, in
 * a code span (`@sales`) — no `<!subteam^…>` or `<@…>`, and nothing Slack's automatic parsing could turn into a
 * mention (https://docs.slack.dev/messaging/formatting-message-text#automatic-parsing) — or, for an id set up
 * before names were kept, what it is and its id.
 */
export function namesOf(ids: readonly string[] | undefined, names: MentionNames | undefined): string {
  return (ids ?? []).map((id) => nameOf(id, names?.[id])).join(', ');
}

/** One id named without paging it (see `namesOf`). */
export function nameOf(id: string, name: string | undefined): string {
  const plain = name?.replace(/[`<>]/g, '').replace(/^@+/, '').trim();
  if (plain) return `\`@${escapeMrkdwn(plain)}\``;
  return `${id.startsWith('S') ? 'the user group' : 'the person'} \`${escapeMrkdwn(id.replace(/`/g, ''))}\``;
}

function shown(text: string): string {
  return `\`${escapeMrkdwn(truncate(text.replace(/`/g, ''), 40))}\``;
}
