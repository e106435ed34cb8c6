/**
 * Answering a modal submission whose work calls the platform.
 *
 * Slack closes a view submission after 3 s. The work gets most of that budget: when it settles in
 * time, field errors go back into the form (`response_action: errors`) and results replace the
 * view. When it is slower, the modal switches to a "working…" view at once and is updated with the
 * outcome when the work finishes — the user never meets a timeout.
 */
import type { AckFn, ViewResponseAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { section } from './blocks.js';
import { modal } from './modals.js';

export type SubmissionOutcome =
  /**
   * Done. `view` replaces the modal; without one the modal closes — or, when the answer came late and the
   * modal already shows "working…", shows `lateNote` (default "✅ Done.": say so when work carries on).
   */
  | { kind: 'done'; view?: ModalView; lateNote?: string }
  /** Input the platform or our checks refused: errors by input block id, and one sentence for late display. */
  | { kind: 'invalid'; errors: Record<string, string>; sentence: string };

const SUBMISSION_BUDGET_MS = 2_200;

export async function settleSubmission(args: {
  ack: AckFn<ViewResponseAction>;
  client: WebClient;
  viewId: string;
  title: string;
  logger: Logger;
  work: Promise<SubmissionOutcome>;
  /** The sentence for a failure `work` did not word itself (src/app/failure.ts words them all). */
  describe: (err: unknown) => string;
  budgetMs?: number;
}): Promise<SubmissionOutcome> {
  const { ack, client, viewId, title, logger, work } = args;
  const guarded = work.catch((err: unknown): SubmissionOutcome => {
    logger.error({ err }, 'modal submission failed unexpectedly');
    return { kind: 'invalid', errors: {}, sentence: args.describe(err) };
  });
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([
    guarded,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), args.budgetMs ?? SUBMISSION_BUDGET_MS);
    }),
  ]);
  clearTimeout(timer);

  if (early) {
    if (early.kind === 'invalid' && Object.keys(early.errors).length > 0) {
      await ack({ response_action: 'errors', errors: early.errors });
    } else if (early.kind === 'invalid') {
      await ack({ response_action: 'update', view: noticeView(title, `❌ ${early.sentence}`) });
    } else {
      await ack(early.view ? { response_action: 'update', view: early.view } : undefined);
    }
    return early;
  }

  await ack({
    response_action: 'update',
    view: noticeView(
      title,
      '⏳ Working on it — the platform is taking a moment. You can close this window; the result will appear here.',
    ),
  });
  const late = await guarded;
  const view =
    late.kind === 'done'
      ? (late.view ?? noticeView(title, late.lateNote ?? '✅ Done.'))
      : noticeView(title, `❌ ${late.sentence}\nOpen the form again to retry.`);
  try {
    await client.views.update({ view_id: viewId, view });
  } catch (err) {
    logger.warn({ err }, 'could not update the modal with the late result');
  }
  return late;
}

export function noticeView(title: string, text: string): ModalView {
  return modal({ callbackId: 'notice', title, blocks: [section(text)] });
}
