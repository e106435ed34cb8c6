/**
 * `/campaign template <id>`: what a campaign template is and which fields it requires.
 */
import type { Template } from '../api/index.js';
import {
  context,
  escapeMrkdwn,
  fields,
  header,
  message,
  section,
  truncate,
  type KnownBlock,
  type MessagePayload,
} from '../slack/blocks.js';
import type { Subcommand } from './types.js';

const TYPE_LABEL = new Map([
  ['outbound', '📞 Outbound phone'],
  ['inbound', '📲 Inbound phone'],
  ['web', '🌐 Web voice bubble'],
  ['messages', '💬 SMS / chat messages'],
]);

export const template: Subcommand = {
  name: 'template',
  usage: 'template <id>',
  summary: 'a campaign template: type, order and required fields',
  readOnly: true,
  args: { min: 1, max: 1 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    await ctx.reply(renderTemplate(await client.templates.get(ctx.args[0] ?? '')));
  },
  failures: (ctx) => ({ notFound: `Template \`${escapeMrkdwn(ctx.args[0] ?? '')}\` was not found on the platform.` }),
};

function renderTemplate(t: Template): MessagePayload {
  const title = t.title || t.assistant_id || 'Template';
  const required = t.required_fields ?? [];
  const blocks: KnownBlock[] = [
    header(truncate(title, 150)),
    fields([
      ['Template id', `\`${escapeMrkdwn(t.assistant_id ?? '—')}\``],
      ['Type', t.type ? (TYPE_LABEL.get(t.type) ?? escapeMrkdwn(t.type)) : '—'],
      ['Order', t.order !== undefined ? String(t.order) : '—'],
      [
        'Required fields',
        required.length > 0
          ? required.map((f) => `\`${escapeMrkdwn(f)}\``).join(', ')
          : 'none beyond the standard payload',
      ],
    ]),
  ];
  if (t.description) blocks.push(section(escapeMrkdwn(truncate(t.description, 2900))));
  blocks.push(context(`Use it as \`TemplateId\` when creating a campaign of type \`${escapeMrkdwn(t.type ?? '?')}\`.`));
  return message(`Template ${escapeMrkdwn(title)} (${escapeMrkdwn(t.type ?? 'unknown type')})`, blocks);
}
