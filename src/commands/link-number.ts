/**
 * `/campaign link-number` (admins): a modal for the phone number id and campaign id → POST
 * /phone-number/link. A refusal (400) comes back onto the form, not as a dead end.
 */
import type { App } from '@slack/bolt';
import { BadRequestError } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { escapeMrkdwn, message, section } from '../slack/blocks.js';
import { readText, textInput } from '../slack/modals.js';
import { describeFailure, logFailure } from '../app/failure.js';
import { onFormSubmit, openForm, type FormResult, type FormSubmission } from './forms.js';
import type { Subcommand } from './types.js';

const CALLBACK_ID = 'link_number_modal';
const TITLE = 'Link phone number';
const PHONE_BLOCK = 'phone_number_id';
const CAMPAIGN_BLOCK = 'campaign_id';

export const linkNumber: Subcommand = {
  name: 'link-number',
  usage: 'link-number',
  summary: 'link a phone number to a campaign',
  admin: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    await openForm(ctx.deps, ctx, {
      callbackId: CALLBACK_ID,
      title: TITLE,
      submit: 'Link',
      blocks: [
        textInput(PHONE_BLOCK, 'Phone number id', {
          placeholder: 'The platform id of the phone number',
          maxLength: 200,
        }),
        textInput(CAMPAIGN_BLOCK, 'Campaign id', {
          placeholder: 'The campaign that answers or places calls on it',
          maxLength: 200,
        }),
      ],
    });
  },
  register(app: App, deps: Deps) {
    onFormSubmit(app, deps, { callbackId: CALLBACK_ID, title: TITLE, handle: (s) => link(deps, s) });
  },
};

async function link(deps: Deps, { view, teamId, logger }: FormSubmission): Promise<FormResult> {
  const phoneNumberId = readText(view, PHONE_BLOCK);
  const campaignId = readText(view, CAMPAIGN_BLOCK);
  if (!phoneNumberId || !campaignId) {
    const errors: Record<string, string> = {};
    if (!phoneNumberId) errors[PHONE_BLOCK] = 'Enter the phone number id.';
    if (!campaignId) errors[CAMPAIGN_BLOCK] = 'Enter the campaign id.';
    return { kind: 'invalid', errors, sentence: 'Both ids are needed.' };
  }
  try {
    const api = await deps.platform.clientFor(teamId);
    await api.phoneNumbers.link({ phoneNumberId, campaignId });
    logger.info({ phoneNumberId, campaignId }, 'phone number linked');
    const text = `📞 Phone number \`${escapeMrkdwn(phoneNumberId)}\` is now linked to campaign \`${escapeMrkdwn(campaignId)}\`.`;
    return { kind: 'done', announce: message(text, [section(text)]) };
  } catch (err) {
    logFailure(logger, err, { phoneNumberId, campaignId }, 'phone number link failed');
    const sentence = describeFailure(err);
    if (err instanceof BadRequestError) {
      const onCampaign = /campaign/i.test(err.message) && !/phone/i.test(err.message);
      return {
        kind: 'invalid',
        errors: { [onCampaign ? CAMPAIGN_BLOCK : PHONE_BLOCK]: sentence.slice(0, 1900) },
        sentence,
      };
    }
    return { kind: 'invalid', errors: {}, sentence };
  }
}
