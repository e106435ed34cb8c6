/**
 * Admin forms: a subcommand opens a modal; its submission runs platform work within Slack's 3 s
 * (see `settleSubmission`), and the outcome is announced where the command was run.
 */
import { adminsOnly } from '../app/admin-gate.js';
import type { AllMiddlewareArgs, App, SlackViewMiddlewareArgs, ViewOutput, ViewSubmitAction } from '@slack/bolt';
import type { KnownBlock, ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Deps } from '../app/deps.js';
import type { Logger } from '../logger.js';
import type { MessagePayload } from '../slack/blocks.js';
import { modal } from '../slack/modals.js';
import { postToResponseUrl } from '../slack/response-url.js';
import { metadataKey, openMetadata, sealMetadata } from '../slack/sealed-metadata.js';
import { noticeView, settleSubmission, type SubmissionOutcome } from '../slack/submission.js';
import type { CommandContext } from './types.js';
import { failureOf, failureText } from '../app/failure.js';

const formMetadata = z.object({
  responseUrl: z.string().url().optional(),
  extra: z.record(z.string(), z.string()).optional(),
});

export type FormResult =
  | {
      kind: 'done';
      /** Posted where the form was opened from (when that was a command). */
      announce?: MessagePayload;
      /** The modal's final state; without one it closes. */
      view?: ModalView;
      /** Runs once the modal has its answer (outside Slack's 3 s), e.g. refreshing App Home. */
      after?: () => Promise<void>;
      /** What the modal says when the answer came late and there is no `view` (see `SubmissionOutcome`). */
      lateNote?: string;
    }
  | { kind: 'invalid'; errors: Record<string, string>; sentence: string };

export interface FormSubmission {
  view: ViewOutput;
  teamId: string;
  /** Set for an org-wide (Enterprise Grid) installation. */
  enterpriseId: string | undefined;
  userId: string;
  client: WebClient;
  logger: Logger;
  /** Extra values the form was opened with (e.g. ids chosen before the modal). */
  extra: Record<string, string>;
}

/** Opens a form modal from a command, remembering (sealed) where to announce the result. */
export async function openForm(
  deps: Pick<Deps, 'config'>,
  ctx: Pick<CommandContext, 'client' | 'triggerId' | 'teamId'> & { responseUrl?: string },
  form: { callbackId: string; title: string; submit: string; blocks: KnownBlock[]; extra?: Record<string, string> },
): Promise<void> {
  await ctx.client.views.open({
    trigger_id: ctx.triggerId,
    view: modal({
      callbackId: form.callbackId,
      title: form.title,
      submit: form.submit,
      blocks: form.blocks,
      privateMetadata: sealMetadata(
        metadataKey(deps.config),
        { callbackId: form.callbackId, teamId: ctx.teamId },
        {
          ...(ctx.responseUrl ? { responseUrl: ctx.responseUrl } : {}),
          ...(form.extra ? { extra: form.extra } : {}),
        },
      ),
    }),
  });
}

/** Handles the submissions of one admin form. `handle` maps every expected failure to a FormResult. */
export function onFormSubmit(
  app: App,
  deps: Deps,
  form: {
    callbackId: string;
    title: string;
    handle(submission: FormSubmission): Promise<FormResult>;
    /** The refusal shown to a submitter who is (no longer) an admin. */
    adminOnly?: string;
  },
): void {
  app.view<ViewSubmitAction>(
    form.callbackId,
    async ({ ack, body, view, client }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
      const teamId = body.team?.id ?? body.user.team_id ?? view.team_id;
      const userId = body.user.id;
      const logger = deps.logger.child({ team: teamId, user: userId, view: form.callbackId });
      const meta = openMetadata(
        metadataKey(deps.config),
        { callbackId: form.callbackId, teamId },
        view.private_metadata,
        formMetadata,
      );
      let done: Extract<FormResult, { kind: 'done' }> | undefined;
      const work = async (): Promise<SubmissionOutcome> => {
        // Forms are opened for admins only, but a submission is checked again, uncached: rights can change, and
        // every form replaces something. The check (users.info) counts against the same 3 s as the platform work.
        const enterpriseId = body.enterprise?.id ?? undefined;
        if (!(await deps.admins.isAdmin(client, teamId, userId, { fresh: true, enterpriseId }))) {
          return {
            kind: 'done',
            view: noticeView(form.title, form.adminOnly ?? adminsOnly('do this')),
          };
        }
        if (!meta) {
          // Not what the bot sealed into this form (altered, or another form's): nothing it names is trusted.
          logger.warn('form submitted with private_metadata the bot did not seal: refused');
          return {
            kind: 'done',
            view: noticeView(
              form.title,
              'This form could not be verified, so nothing was changed — run the command again to open a fresh one.',
            ),
          };
        }
        const result = await form.handle({
          view,
          teamId,
          enterpriseId,
          userId,
          client,
          logger,
          extra: meta.extra ?? {},
        });
        if (result.kind === 'invalid') return result;
        done = result;
        return {
          kind: 'done',
          ...(result.view ? { view: result.view } : {}),
          ...(result.lateNote ? { lateNote: result.lateNote } : {}),
        };
      };
      const outcome = await settleSubmission({
        ack,
        client,
        viewId: view.id,
        title: form.title,
        logger,
        work: work(),
        describe: (err) => failureText(failureOf(err)),
      });
      if (outcome.kind !== 'done' || !done) return;
      if (done.announce && meta?.responseUrl) {
        await postToResponseUrl(
          meta.responseUrl,
          { response_type: 'ephemeral', ...done.announce },
          logger,
          deps.config.slack,
        );
      }
      await done.after?.().catch((err: unknown) => logger.warn({ err }, 'follow-up of a form submission failed'));
    },
  );
}
