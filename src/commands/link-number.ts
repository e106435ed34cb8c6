/**
 * `/campaign link-number` (admins): a modal for the phone number and the campaign → POST /phone-number/link.
 * Both fields are menus offering what the bot has seen (campaigns by name, numbers linked before) and taking
 * any typed id too (`catalog-select.ts`); a campaign may be typed by name. A refusal (400) comes back onto
 * the form, not as a dead end — with the known campaigns a typo away when the campaign was the problem.
 */
import type { App } from '@slack/bolt';
import { BadRequestError } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { escapeMrkdwn, message, section, truncate } from '../slack/blocks.js';
import { externalSelect, readSelected } from '../slack/modals.js';
import { failureOf, failureText, logFailure } from '../app/failure.js';
import { campaignLabel, chooseCampaign, didYouMean, remember } from './campaign-ref.js';
import { CAMPAIGN_FIELD, NUMBER_FIELD, registerCatalogMenus } from './catalog-select.js';
import { onFormSubmit, openForm, type FormResult, type FormSubmission } from './forms.js';
import type { Subcommand } from './types.js';

const CALLBACK_ID = 'link_number_modal';
const TITLE = 'Link phone number';

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
        externalSelect(NUMBER_FIELD, 'Phone number id', {
          placeholder: 'Type the platform id of the phone number',
          hint: 'Numbers linked before are listed; type any other id and choose “as typed”.',
        }),
        externalSelect(CAMPAIGN_FIELD, 'Campaign', {
          placeholder: 'Type a campaign name or id',
          hint: 'Campaigns the bot has seen are listed by name; type any other id and choose “as typed”.',
        }),
      ],
    });
  },
  register(app: App, deps: Deps) {
    registerCatalogMenus(app, deps);
    onFormSubmit(app, deps, { callbackId: CALLBACK_ID, title: TITLE, handle: (s) => link(deps, s) });
  },
};

async function link(deps: Deps, { view, teamId, logger }: FormSubmission): Promise<FormResult> {
  const phoneNumberId = readSelected(view, NUMBER_FIELD);
  const campaignText = readSelected(view, CAMPAIGN_FIELD);
  if (!phoneNumberId || !campaignText) {
    const errors: Record<string, string> = {};
    if (!phoneNumberId) errors[NUMBER_FIELD] = 'Choose or type the phone number id.';
    if (!campaignText) errors[CAMPAIGN_FIELD] = 'Choose or type the campaign.';
    return { kind: 'invalid', errors, sentence: 'Both are needed.' };
  }
  const choice = await chooseCampaign(deps, teamId, campaignText);
  if (!choice.ok) return { kind: 'invalid', errors: { [CAMPAIGN_FIELD]: choice.sentence }, sentence: choice.sentence };
  const campaign = choice.target;
  const campaignId = campaign.id;
  try {
    const api = await deps.platform.clientFor(teamId);
    await api.phoneNumbers.link({ phoneNumberId, campaignId });
    logger.info({ phoneNumberId, campaignId }, 'phone number linked');
    await remember(deps, logger, teamId, 'campaigns', { id: campaignId });
    await remember(deps, logger, teamId, 'numbers', { id: phoneNumberId, campaignId });
    const text = `📞 Phone number \`${escapeMrkdwn(phoneNumberId)}\` is now linked to ${campaignLabel(campaign)}.`;
    return { kind: 'done', announce: message(text, [section(text)]) };
  } catch (err) {
    logFailure(logger, err, { phoneNumberId, campaignId }, 'phone number link failed');
    if (err instanceof BadRequestError) {
      const onCampaign = /campaign/i.test(err.message) && !/phone/i.test(err.message);
      const words = onCampaign
        ? `${refusal(err.message, { campaign: campaignId })}${didYouMean(campaign.near)}`
        : refusal(err.message, { number: phoneNumberId });
      const sentence = failureText(failureOf(err, { byStatus: { 400: words } }));
      return {
        kind: 'invalid',
        errors: { [onCampaign ? CAMPAIGN_FIELD : NUMBER_FIELD]: sentence.slice(0, 1900) },
        sentence,
      };
    }
    return { kind: 'invalid', errors: {}, sentence: failureText(failureOf(err)) };
  }
}

/**
 * A 400 on the field it names, in words: the platform's own message (e.g. "phoneNumberId pn-9 does not exist")
 * is read only for whether it says the thing is unknown. Ids in quotes: field errors are plain text (escaped all
 * the same, since a late answer shows the sentence in the modal as mrkdwn).
 */
function refusal(platformMessage: string, what: { campaign: string } | { number: string }): string {
  const thing = escapeMrkdwn('campaign' in what ? `campaign “${what.campaign}”` : `phone number “${what.number}”`);
  if (/not exist|not found|unknown|no such/i.test(platformMessage))
    return `The platform doesn’t know ${thing} — choose one from the list, or check the id on the platform.`;
  return `The platform refused ${thing}: “${escapeMrkdwn(truncate(platformMessage, 300))}” — choose another, or check the id on the platform.`;
}
