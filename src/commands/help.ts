/**
 * `/campaign help`: the list of subcommands, also shown for no text and (with a "did you mean")
 * for an unknown subcommand.
 */
import { closest, distance } from 'fastest-levenshtein';
import { context, escapeMrkdwn, header, message, section, truncate, type MessagePayload } from '../slack/blocks.js';
import type { Subcommand } from './types.js';

export function renderHelp(commands: readonly Subcommand[], unknown?: string): MessagePayload {
  const lines = commands.map((c) => `• \`/campaign ${escapeMrkdwn(c.usage)}\` — ${c.summary}${audienceNote(c)}`);
  const suggestion = unknown ? didYouMean(unknown, commands) : undefined;
  const intro = unknown
    ? `There is no \`/campaign ${escapeMrkdwn(truncate(unknown, 40))}\`.${suggestion ? ` Did you mean \`/campaign ${suggestion}\`?` : ''}`
    : undefined;
  return message(intro ?? 'How to use /campaign', [
    ...(intro ? [section(intro)] : [header('/campaign')]),
    section(lines.join('\n')),
    context(
      'Read commands accept `--public` to post the answer in the channel. Answers are private otherwise. _(members)_: it shows customer details, so it is for full members of this workspace, not guests or people of another organisation.',
      'Where a campaign id is asked for, its name works too (as the platform’s events name it; a word of it is enough when only one campaign has it).',
    ),
  ]);
}

function audienceNote(c: Subcommand): string {
  if (c.admin) return ' _(admins)_';
  return c.audience === 'members' ? ' _(members)_' : '';
}

/** The nearest subcommand name, if it is plausibly a typo (at most 2 edits, or a prefix). */
function didYouMean(word: string, commands: readonly Subcommand[]): string | undefined {
  const names = commands.map((c) => c.name);
  const prefixed = names.find((n) => n.startsWith(word) && word.length >= 2);
  if (prefixed) return prefixed;
  const best = closest(word, names);
  return distance(word, best) <= Math.max(1, Math.min(2, Math.floor(best.length / 3))) ? best : undefined;
}
