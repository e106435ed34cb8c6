/**
 * `/campaign profile` (admins): a modal for company, full name and picture URL → POST
 * /account/profile with only the fields the admin filled, then the profile as the platform saved it.
 */
import type { App } from '@slack/bolt';
import { BadRequestError, type UserProfile } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { fields, linkTo, literal, message, section, type MessagePayload } from '../slack/blocks.js';
import { readText, textInput } from '../slack/modals.js';
import { failureOf, failureText, logFailure } from '../app/failure.js';
import { onFormSubmit, openForm, type FormResult, type FormSubmission } from './forms.js';
import type { Subcommand } from './types.js';

const CALLBACK_ID = 'profile_modal';
const TITLE = 'Account profile';
const FIELDS = { company: 'company', full_name: 'full_name', picture: 'picture' } as const;

export const profile: Subcommand = {
  name: 'profile',
  usage: 'profile',
  summary: 'update the account profile: company, name, picture',
  admin: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    await openForm(ctx.deps, ctx, {
      callbackId: CALLBACK_ID,
      title: TITLE,
      submit: 'Save',
      blocks: [
        section('Fill only what should change; empty fields are left as they are.'),
        textInput(FIELDS.company, 'Company', { optional: true, maxLength: 200 }),
        textInput(FIELDS.full_name, 'Full name', {
          optional: true,
          maxLength: 200,
          hint: 'The administrator display name on the platform.',
        }),
        textInput(FIELDS.picture, 'Picture URL', { optional: true, placeholder: 'https://…', maxLength: 2000 }),
      ],
    });
  },
  register(app: App, deps: Deps) {
    onFormSubmit(app, deps, { callbackId: CALLBACK_ID, title: TITLE, handle: (s) => save(deps, s) });
  },
};

async function save(deps: Deps, { view, teamId, logger }: FormSubmission): Promise<FormResult> {
  const body = {
    company: readText(view, FIELDS.company),
    full_name: readText(view, FIELDS.full_name),
    picture: readText(view, FIELDS.picture),
  };
  if (body.picture !== undefined && !isHttpsUrl(body.picture)) {
    const sentence = 'Enter a full https:// address of an image.';
    return { kind: 'invalid', errors: { [FIELDS.picture]: sentence }, sentence };
  }
  const filled = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<
    Record<keyof typeof body, string>
  >;
  if (Object.keys(filled).length === 0) {
    const sentence = 'Fill at least one field.';
    return { kind: 'invalid', errors: { [FIELDS.company]: sentence }, sentence };
  }
  try {
    const api = await deps.platform.clientFor(teamId);
    const saved = await api.account.updateProfile(filled);
    logger.info({ fields: Object.keys(filled) }, 'account profile updated');
    return { kind: 'done', announce: renderProfile(saved) };
  } catch (err) {
    logFailure(logger, err, {}, 'profile update failed');
    const sentence = failureText(failureOf(err));
    if (err instanceof BadRequestError) {
      // Put the platform's complaint on the field it names, else on the first one filled.
      const named = (Object.keys(filled) as Array<keyof typeof FIELDS>).find(
        (f) => err.message.toLowerCase().includes(f.replace('_', ' ')) || err.message.includes(f),
      );
      const field = named ?? (Object.keys(filled)[0] as keyof typeof FIELDS);
      return { kind: 'invalid', errors: { [FIELDS[field]]: sentence.slice(0, 1900) }, sentence };
    }
    return { kind: 'invalid', errors: {}, sentence };
  }
}

function renderProfile(p: UserProfile): MessagePayload {
  const company = p.user_metadata?.company;
  const name = p.user_metadata?.full_name;
  return message('Account profile updated', [
    section('✅ Account profile updated.'),
    fields([
      ['Company', company ? literal(company) : '—'],
      ['Full name', name ? literal(name) : '—'],
      // A link, not an image accessory: Slack downloads image URLs and refuses the message when it can't.
      ['Picture', p.picture ? linkTo(p.picture) : '—'],
    ]),
  ]);
}

function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}
