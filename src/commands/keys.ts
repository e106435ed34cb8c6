/**
 * `/campaign keys` (admins): the account's API keys — company, customer id, created, active — each
 * shown only as its last four characters. The full key never reaches Slack or the logs.
 */
import type { ApiKeyRow } from '../api/index.js';
import { maskKey } from '../api/index.js';
import {
  context,
  escapeMrkdwn,
  header,
  literal,
  message,
  section,
  slackDate,
  type KnownBlock,
  type MessagePayload,
} from '../slack/blocks.js';
import type { Subcommand } from './types.js';

const MAX_KEYS_SHOWN = 40;

export const keys: Subcommand = {
  name: 'keys',
  usage: 'keys',
  summary: 'the account’s API keys (last 4 characters only)',
  admin: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    const rows = await client.keys.list();
    // Register every key with the log redactor before anything could log a row.
    for (const row of rows) ctx.deps.redactor.addSecret(row.RowKey);
    await ctx.reply(renderKeys(rows));
  },
};

function renderKeys(rows: readonly ApiKeyRow[]): MessagePayload {
  if (rows.length === 0) return message('No API keys', [section('The account has no API keys.')]);
  const shown = rows.slice(0, MAX_KEYS_SHOWN);
  const blocks: KnownBlock[] = [
    header('API keys'),
    ...shown.map((k) =>
      section(
        [
          `${k.Active === false ? '⚪️' : '🟢'} \`${k.RowKey ? maskKey(k.RowKey) : '••••'}\` — ${k.Active === false ? 'inactive' : 'active'}`,
          `${literal(k.CompanyName || 'No company')} · customer \`${escapeMrkdwn(k.CustomerId || '—')}\` · created ${slackDate(k.CreatedAt ?? k.Timestamp)}`,
        ].join('\n'),
      ),
    ),
    context(
      rows.length > shown.length
        ? `Showing ${shown.length} of ${rows.length} keys.`
        : 'Keys are shown by their last 4 characters only. Manage them in the platform portal.',
    ),
  ];
  return message(`${rows.length} API keys`, blocks);
}
