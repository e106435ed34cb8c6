/**
 * `/campaign verify` (admins): submits the business-verification profile for review and shows the
 * four review statuses, provider failures per product, CNAM numbers and when it was last updated.
 */
import type { ProviderFailure, VerificationProfile } from '../api/index.js';
import {
  context,
  divider,
  escapeMrkdwn,
  fields,
  header,
  literal,
  message,
  section,
  slackDate,
  truncate,
  type KnownBlock,
  type MessagePayload,
} from '../slack/blocks.js';
import type { Subcommand } from './types.js';

const STATUS_ICON: Record<string, string> = {
  draft: '📝',
  'pending-review': '⏳',
  'in-review': '🔎',
  'twilio-approved': '✅',
  'twilio-rejected': '❌',
};

const MAX_FAILURES_PER_PRODUCT = 10;

export const verify: Subcommand = {
  name: 'verify',
  usage: 'verify',
  summary: 'submit business verification and show its review status',
  admin: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    const client = await ctx.deps.platform.clientFor(ctx.teamId);
    await ctx.reply(renderVerification(await client.verification.submit()));
  },
  failures: () => ({
    byStatus: {
      409: 'Your business profile is being processed — try again when it settles (usually a few minutes).',
      422: 'Business verification is not configured on the platform for this account — ask the platform team to enable it.',
      400: 'The platform has no business profile to submit yet — create it in the platform portal first.',
    },
  }),
};

function status(value: string | null | undefined): string {
  if (!value) return '— none';
  return `${STATUS_ICON[value] ?? '•'} ${escapeMrkdwn(value)}`;
}

function failureLines(list: readonly ProviderFailure[] | null | undefined): string {
  if (!list || list.length === 0) return 'none';
  const lines = list
    .slice(0, MAX_FAILURES_PER_PRODUCT)
    .map((f) => `• \`${escapeMrkdwn(f.code ?? 'unknown')}\` ${escapeMrkdwn(truncate(f.message ?? '', 300))}`);
  if (list.length > MAX_FAILURES_PER_PRODUCT) lines.push(`…and ${list.length - MAX_FAILURES_PER_PRODUCT} more`);
  return lines.join('\n');
}

function renderVerification(p: VerificationProfile): MessagePayload {
  const blocks: KnownBlock[] = [
    header('Business verification submitted'),
    fields([
      ['Secondary profile', status(p.secondaryProfileStatus)],
      ['Trust product', status(p.trustProductStatus)],
      ['Voice integrity', status(p.voiceIntegrityStatus)],
      ['CNAM (caller ID name)', status(p.cnamStatus)],
    ]),
    divider(),
    section(`*Business profile failures*\n${failureLines(p.providerFailures)}`),
    section(`*Voice integrity failures*\n${failureLines(p.voiceIntegrityFailures)}`),
    section(`*CNAM failures*\n${failureLines(p.cnamFailures)}`),
    section(
      `*CNAM numbers*\n${p.cnamPhoneNumbers && p.cnamPhoneNumbers.length > 0 ? p.cnamPhoneNumbers.map((n) => `\`${escapeMrkdwn(n)}\``).join(', ') : 'none'}` +
        (p.cnamData?.cnam_display_name ? `\nDisplay name: *${literal(p.cnamData.cnam_display_name)}*` : ''),
    ),
    context(
      `Last updated ${slackDate(p.lastUpdated ?? undefined)} · the review is asynchronous; run \`/campaign verify\` again later to see progress.`,
    ),
  ];
  const summary = [p.secondaryProfileStatus, p.trustProductStatus, p.voiceIntegrityStatus, p.cnamStatus]
    .map((s) => s ?? 'none')
    .join(' / ');
  return message(`Business verification submitted: ${escapeMrkdwn(summary)}`, blocks);
}
