/**
 * `/campaign replies`: the workspace's saved replies, which any full member sends from a conversation card's
 * **Quick reply**. `replies add <name> <text…>` saves one (or replaces the one of that name) and `replies
 * remove <name>` removes one — admins only.
 *
 * The text is what follows the name, line breaks kept; Slack sends a slash command's text with its markup
 * (`&amp;`, `<@U…>`, `:emoji:`, `*bold*`), which becomes plain text here exactly as a reply typed in a thread
 * does — what is saved is what the customer reads, and what the Quick reply form shows.
 */
import { adminsOnly } from '../app/admin-gate.js';
import { displayName } from '../handoff/agents.js';
import { toCustomerText } from '../handoff/slack-text.js';
import { context, escapeMrkdwn, header, message, section, truncate, type KnownBlock } from '../slack/blocks.js';
import { inline, quote } from '../slack/text.js';
import { SAVED_REPLIES_MAX, type SavedReply } from '../store/index.js';
import type { CommandContext, Subcommand } from './types.js';

const USAGE = 'replies [add <name> <text…>|remove <name>]';
const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const TEXT_MAX = 2000;
/** Room per section for the list's lines (Slack takes 3,000 characters). */
const SECTION_MAX = 2900;

export const replies: Subcommand = {
  name: 'replies',
  usage: USAGE,
  summary: 'saved replies for handoff conversations (Quick reply on the card); admins add and remove them',
  audience: 'members',
  freeText: true,
  args: { min: 0, max: Number.MAX_SAFE_INTEGER },
  adminWhen: (args) => ['add', 'remove'].includes(args[0]?.toLowerCase() ?? ''),
  async run(ctx) {
    const verb = ctx.args[0]?.toLowerCase();
    if (verb === undefined || verb === 'list') return list(ctx);
    if (verb !== 'add' && verb !== 'remove')
      return ctx.tell(
        `\`${escapeMrkdwn(truncate(ctx.args[0] ?? '', 40))}\` is not something \`/campaign replies\` does: use \`/campaign replies\` to list them, \`replies add &lt;name&gt; &lt;text…&gt;\` or \`replies remove &lt;name&gt;\`.`,
      );
    const admin = await ctx.deps.admins.isAdmin(ctx.client, ctx.teamId, ctx.userId, { fresh: verb === 'remove' });
    if (!admin)
      return ctx.tell(
        `${adminsOnly('add or remove saved replies')} \`/campaign replies\` lists them, and *Quick reply* on a conversation card sends one.`,
      );
    return verb === 'add' ? add(ctx) : remove(ctx);
  },
};

async function list(ctx: CommandContext): Promise<void> {
  const saved = await ctx.deps.store.savedReplies.list(ctx.teamId);
  if (saved.length === 0) {
    await ctx.tell(
      'No saved replies yet. An admin saves one with `/campaign replies add &lt;name&gt; &lt;text…&gt;`, e.g. `/campaign replies add greeting Hi! Thanks for reaching out — how can I help?`',
    );
    return;
  }
  const blocks: KnownBlock[] = [
    header('Saved replies'),
    context(
      `${saved.length} of at most ${SAVED_REPLIES_MAX} · send one with *Quick reply* on a conversation card · admins: \`replies add\`, \`replies remove\``,
    ),
    ...sections(saved.map(line)),
  ];
  await ctx.reply(message(`${saved.length} saved replies`, blocks));
}

function line(r: SavedReply): string {
  return `• \`${escapeMrkdwn(r.name)}\` — ${inline(r.text, 160) ?? ''}`;
}

/** The lines in as few sections as fit. */
function sections(lines: readonly string[]): KnownBlock[] {
  const out: string[] = [];
  for (const l of lines) {
    const last = out.at(-1);
    if (last !== undefined && last.length + 1 + l.length <= SECTION_MAX) out[out.length - 1] = `${last}\n${l}`;
    else out.push(l);
  }
  return out.map((text) => section(text));
}

async function add(ctx: CommandContext): Promise<void> {
  const match = /^\s*\S+\s+(\S+)(?:\s+([\s\S]*))?$/.exec(ctx.text);
  const name = match?.[1]?.toLowerCase();
  const raw = match?.[2]?.trim();
  if (!name || !raw)
    return ctx.tell(
      'Give the reply a name and its text, e.g. `/campaign replies add greeting Hi! Thanks for reaching out — how can I help?`',
    );
  if (!NAME.test(name))
    return ctx.tell(
      'A saved reply’s name is 1 to 40 lowercase letters, digits and dashes, starting with a letter or digit, e.g. `refund-policy`.',
    );
  const text = await toCustomerText(raw, (id) => displayName(ctx.deps, ctx.client, ctx.teamId, id));
  if (text === '')
    return ctx.tell(
      'That reply has no text once Slack’s formatting is taken off — write the words the customer should read.',
    );
  if ([...text].length > TEXT_MAX)
    return ctx.tell(
      `A saved reply is at most ${TEXT_MAX.toLocaleString('en-US')} characters; this one has ${[...text].length.toLocaleString('en-US')}.`,
    );
  const outcome = await ctx.deps.store.savedReplies.save(ctx.teamId, {
    name,
    text,
    by: ctx.userId,
    at: ctx.deps.store.now(),
  });
  if (outcome === 'full')
    return ctx.tell(
      `This workspace has ${SAVED_REPLIES_MAX} saved replies, the most a Quick reply can list — remove one with \`/campaign replies remove &lt;name&gt;\` first.`,
    );
  ctx.logger.info({ name, chars: text.length, outcome }, 'saved reply stored');
  await ctx.reply(
    message(`Saved reply ${name} ${outcome}`, [
      section(
        `✅ ${outcome === 'added' ? 'Saved' : 'Replaced'} \`${escapeMrkdwn(name)}\` — *Quick reply* on a conversation card sends it. The customer reads:`,
      ),
      section(quote(text, 2800)),
    ]),
  );
}

async function remove(ctx: CommandContext): Promise<void> {
  const name = ctx.args[1]?.toLowerCase();
  if (!name || ctx.args.length > 2)
    return ctx.tell('Name the saved reply to remove, e.g. `/campaign replies remove greeting`.');
  const removed = await ctx.deps.store.savedReplies.remove(ctx.teamId, name);
  if (removed) ctx.logger.info({ name }, 'saved reply removed');
  await ctx.tell(
    removed
      ? `🗑️ Removed the saved reply \`${escapeMrkdwn(name)}\`.`
      : `There is no saved reply \`${escapeMrkdwn(truncate(name, 40))}\` — \`/campaign replies\` lists them.`,
  );
}
