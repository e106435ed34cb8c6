/**
 * `/campaign help`: the list of subcommands, also shown for no text and (with a "did you mean")
 * for an unknown subcommand.
 */
import { typoBudget, typos } from './catalog-match.js';
import {
  LIMITS,
  context,
  escapeMrkdwn,
  header,
  message,
  section,
  truncate,
  type MessagePayload,
  type KnownBlock,
} from '../slack/blocks.js';
import type { Subcommand } from './types.js';

/** Help's groups, by who runs the subcommand: what Intercom- or Front-trained teams look for first is their part. */
const GROUPS = [
  { title: '*For everyone*', holds: (c: Subcommand) => !c.admin && c.audience !== 'members' },
  {
    title: '*For agents* — full members of this workspace (these show customer details, so not guests)',
    holds: (c: Subcommand) => !c.admin && c.audience === 'members',
  },
  {
    title: '*For admins* — workspace admins and owners, or people in the app’s ADMIN_USER_IDS',
    holds: (c: Subcommand) => c.admin === true,
  },
] as const;

export function renderHelp(commands: readonly Subcommand[], unknown?: string): MessagePayload {
  const suggestion = unknown ? didYouMean(unknown, commands) : undefined;
  const intro = unknown
    ? `There is no \`/campaign ${escapeMrkdwn(truncate(unknown, 40))}\`.${suggestion ? ` Did you mean \`/campaign ${suggestion}\`?` : ''}`
    : undefined;
  return message(intro ?? 'How to use /campaign', [
    ...(intro ? [section(intro)] : [header('/campaign')]),
    ...GROUPS.flatMap((group) => groupSections(group.title, commands.filter(group.holds))),
    context(
      'Read commands accept `--public` to post the answer in the channel. Answers are private otherwise.',
      'Where a campaign id is asked for, its name works too (as the platform’s events name it; a word of it is enough when only one campaign has it).',
    ),
  ]);
}

/** A group's title and lines, in as many sections as Slack's 3,000 characters per section take. */
function groupSections(title: string, commands: readonly Subcommand[]): KnownBlock[] {
  if (commands.length === 0) return [];
  const sections: string[] = [title];
  for (const c of commands) {
    const line = `• \`/campaign ${escapeMrkdwn(c.usage)}\` — ${c.summary}`;
    const last = sections.length - 1;
    if (sections[last]!.length + 1 + line.length > LIMITS.sectionText) sections.push(line);
    else sections[last] = `${sections[last]}\n${line}`;
  }
  return sections.map((text) => section(text));
}

/** The subcommand the word starts, else the nearest within a typo's reach; of two as near, the same first letter. */
function didYouMean(word: string, commands: readonly Subcommand[]): string | undefined {
  const names = commands.map((c) => c.name);
  const prefixed = names.find((n) => n.startsWith(word) && word.length >= 2);
  if (prefixed) return prefixed;
  const near = names
    .map((name) => ({ name, typos: typos(word, name) }))
    .filter((n) => n.typos <= typoBudget(n.name))
    .sort((x, y) => x.typos - y.typos || Number(y.name[0] === word[0]) - Number(x.name[0] === word[0]));
  return near[0]?.name;
}
