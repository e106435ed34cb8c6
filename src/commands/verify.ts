/**
 * `/campaign verify` (admins): the review statuses of the workspace's last business-verification submission
 * (kept from the platform's 202), its failures per product, CNAM numbers and when it was last updated — and a
 * **Submit for review** button behind a confirm dialog. Each submit enqueues another review on the platform,
 * so nothing is submitted by merely looking.
 */
import type { ProviderFailure, VerificationProfile } from '../api/index.js';
import type { FailureWording } from '../app/failure.js';
import { failureMessage, failureOf, logFailure } from '../app/failure.js';
import {
  actions,
  button,
  context,
  divider,
  escapeMrkdwn,
  fields,
  header,
  literal,
  message,
  mrkdwn,
  section,
  slackDate,
  truncate,
  type KnownBlock,
  type MessagePayload,
} from '../slack/blocks.js';
import type { Button } from '@slack/types';
import type { VerificationSubmission } from '../store/index.js';
import { adminButton } from './admin-button.js';
import type { Subcommand } from './types.js';

const SUBMIT_ACTION = 'verification_submit';

const STATUS_ICON = new Map([
  ['draft', '📝'],
  ['pending-review', '⏳'],
  ['in-review', '🔎'],
  ['twilio-approved', '✅'],
  ['twilio-rejected', '❌'],
]);

const MAX_FAILURES_PER_PRODUCT = 10;

const FAILURES: FailureWording = {
  byStatus: {
    409: 'Your business profile is being processed — submit again when it settles (usually a few minutes).',
    422: 'Business verification is not configured on the platform for this account — ask the platform team to enable it.',
    400: 'The platform has no business profile to submit yet — create it in the platform portal first.',
  },
};

export const verify: Subcommand = {
  name: 'verify',
  usage: 'verify',
  summary: 'business verification: the last submission’s review statuses, and Submit for review',
  admin: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    await ctx.reply(renderVerification(await ctx.deps.store.verification.last(ctx.teamId)));
  },
  failures: () => FAILURES,
  register(app, deps) {
    adminButton(app, deps, SUBMIT_ACTION, 'submit business verification', async ({ teamId, userId, respond }) => {
      const log = { team: teamId, user: userId };
      try {
        const api = await deps.platform.clientFor(teamId);
        const submission = submissionOf(await api.verification.submit(), userId, Date.now());
        await deps.store.verification.save(teamId, submission);
        deps.logger.info(log, 'business verification submitted for review');
        await respond({ replace_original: true, ...renderVerification(submission, { justSubmitted: true }) });
      } catch (err) {
        logFailure(deps.logger, err, log, 'business verification submit failed');
        await respond({ replace_original: false, ...failureMessage(failureOf(err, FAILURES)) });
      }
    });
  },
};

/** What is kept of the platform's answer (no form data: it holds the business's own details). */
function submissionOf(p: VerificationProfile, user: string, at: number): VerificationSubmission {
  const list = (l: readonly ProviderFailure[] | null | undefined) =>
    l ? l.map((f) => ({ ...(f.code ? { code: f.code } : {}), ...(f.message ? { message: f.message } : {}) })) : null;
  return {
    submittedAt: at,
    submittedBy: user,
    statuses: {
      secondaryProfile: p.secondaryProfileStatus ?? null,
      trustProduct: p.trustProductStatus ?? null,
      voiceIntegrity: p.voiceIntegrityStatus ?? null,
      cnam: p.cnamStatus ?? null,
    },
    providerFailures: list(p.providerFailures),
    voiceIntegrityFailures: list(p.voiceIntegrityFailures),
    cnamFailures: list(p.cnamFailures),
    cnamPhoneNumbers: p.cnamPhoneNumbers ?? [],
    cnamDisplayName: p.cnamData?.cnam_display_name ?? null,
    lastUpdated: p.lastUpdated ?? null,
  };
}

function submitButton(again: boolean): Button {
  const submit = button(
    again ? 'Submit again for review' : 'Submit for review',
    SUBMIT_ACTION,
    again ? {} : { style: 'primary' },
  );
  submit.confirm = {
    title: { type: 'plain_text', text: 'Submit for review?' },
    text: mrkdwn(
      'The platform queues a new review of your business profile and its add-ons. Submit only after changing the profile, or when a review was rejected.',
      300,
    ),
    confirm: { type: 'plain_text', text: 'Submit' },
    deny: { type: 'plain_text', text: 'Not now' },
  };
  return submit;
}

function status(value: string | null | undefined): string {
  if (!value) return '— none';
  return `${STATUS_ICON.get(value) ?? '•'} ${escapeMrkdwn(value)}`;
}

function failureLines(list: VerificationSubmission['providerFailures']): string {
  if (!list || list.length === 0) return 'none';
  const lines = list
    .slice(0, MAX_FAILURES_PER_PRODUCT)
    .map((f) => `• \`${escapeMrkdwn(f.code ?? 'unknown')}\` ${escapeMrkdwn(truncate(f.message ?? '', 300))}`);
  if (list.length > MAX_FAILURES_PER_PRODUCT) lines.push(`…and ${list.length - MAX_FAILURES_PER_PRODUCT} more`);
  return lines.join('\n');
}

function renderVerification(
  s: VerificationSubmission | undefined,
  opts: { justSubmitted?: boolean } = {},
): MessagePayload {
  if (!s) {
    return message('Business verification: no submission on record', [
      header('Business verification'),
      section(
        'No submission is on record here yet: the app keeps the statuses of submissions made with this button. ' +
          'Submit when your business profile is ready in the platform portal.',
      ),
      actions([submitButton(false)]),
    ]);
  }
  const submitted = `<!date^${Math.floor(s.submittedAt / 1000)}^{date_short_pretty} at {time}|${new Date(s.submittedAt).toISOString()}>`;
  const blocks: KnownBlock[] = [
    header(opts.justSubmitted ? 'Business verification submitted' : 'Business verification'),
    context(`Submitted by <@${s.submittedBy}> ${submitted}`),
    fields([
      ['Secondary profile', status(s.statuses.secondaryProfile)],
      ['Trust product', status(s.statuses.trustProduct)],
      ['Voice integrity', status(s.statuses.voiceIntegrity)],
      ['CNAM (caller ID name)', status(s.statuses.cnam)],
    ]),
    divider(),
    section(`*Business profile failures*\n${failureLines(s.providerFailures)}`),
    section(`*Voice integrity failures*\n${failureLines(s.voiceIntegrityFailures)}`),
    section(`*CNAM failures*\n${failureLines(s.cnamFailures)}`),
    section(
      `*CNAM numbers*\n${s.cnamPhoneNumbers.length > 0 ? s.cnamPhoneNumbers.map((n) => `\`${escapeMrkdwn(n)}\``).join(', ') : 'none'}` +
        (s.cnamDisplayName ? `\nDisplay name: *${literal(s.cnamDisplayName)}*` : ''),
    ),
    context(
      `Last updated ${slackDate(s.lastUpdated ?? undefined)} · the statuses are those of the platform’s answer to this submission; the review itself goes on on the platform.`,
    ),
  ];
  if (!opts.justSubmitted) blocks.push(actions([submitButton(true)]));
  const summary = Object.values(s.statuses)
    .map((v) => v ?? 'none')
    .join(' / ');
  return message(`Business verification${opts.justSubmitted ? ' submitted' : ''}: ${escapeMrkdwn(summary)}`, blocks);
}
