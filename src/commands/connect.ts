/**
 * `/campaign connect` (admins): a modal asks for the platform API key; the key is verified with
 * GET /open-api, then stored encrypted for this workspace. A rejected key is reported on the field.
 */
import { AuthenticationError, maskKey } from '../api/index.js';
import type { Deps } from '../app/deps.js';
import { context, escapeMrkdwn, literal, message, section } from '../slack/blocks.js';
import { modal, readText, textInput } from '../slack/modals.js';
import { failureOf, failureText, logFailure } from '../app/failure.js';
import { onFormSubmit, openForm, type FormResult, type FormSubmission } from './forms.js';
import type { CommandContext, Subcommand } from './types.js';

const CALLBACK_ID = 'connect_modal';
const TITLE = 'Connect platform';
const KEY_BLOCK = 'api_key';
/** Where the modal was opened from, kept in its metadata. */
const ORIGIN = 'origin';
const HOME_ORIGIN = 'home';

export const connect: Subcommand = {
  name: 'connect',
  usage: 'connect',
  summary: 'connect this workspace to the platform with an API key',
  admin: true,
  args: { min: 0, max: 0 },
  async run(ctx) {
    await openConnectForm(ctx.deps, ctx);
  },
  register(app, deps) {
    onFormSubmit(app, deps, { callbackId: CALLBACK_ID, title: TITLE, handle: (s) => verifyAndSave(deps, s) });
  },
};

/**
 * Opens the connect modal: from the command (the outcome is announced through its response_url), or from
 * the App Home button (no channel to answer in: the modal says how it went and Home is republished).
 */
export async function openConnectForm(
  deps: Deps,
  ctx: {
    client: CommandContext['client'];
    triggerId: string;
    teamId: string;
    responseUrl?: string;
    fromHome?: boolean;
  },
): Promise<void> {
  const current = await deps.store.workspaces.getConnection(ctx.teamId);
  await openForm(deps, ctx, {
    callbackId: CALLBACK_ID,
    title: TITLE,
    submit: 'Verify & save',
    ...(ctx.fromHome ? { extra: { [ORIGIN]: HOME_ORIGIN } } : {}),
    blocks: [
      section(
        current
          ? `This workspace is connected with key \`••••${escapeMrkdwn(current.last4)}\`. Enter a new key to replace it.`
          : 'Paste an API key from the platform portal (*Settings › API Keys*). It is verified, then stored encrypted; nobody sees it again in Slack.',
      ),
      textInput(KEY_BLOCK, 'API key', { placeholder: 'Your platform API key', maxLength: 500 }),
    ],
  });
}

async function verifyAndSave(
  deps: Deps,
  { view, teamId, userId, client, logger, extra }: FormSubmission,
): Promise<FormResult> {
  const apiKey = readText(view, KEY_BLOCK);
  if (!apiKey)
    return { kind: 'invalid', errors: { [KEY_BLOCK]: 'Enter the API key.' }, sentence: 'Enter the API key.' };
  deps.redactor.addSecret(apiKey);
  try {
    const keys = await deps.platform.clientForKey(apiKey, teamId).keys.list();
    await deps.store.workspaces.setApiKey(teamId, apiKey, { verifiedBy: userId });
    const company = keys.find((k) => k.RowKey === apiKey)?.CompanyName ?? keys[0]?.CompanyName;
    logger.info({ key: maskKey(apiKey) }, 'workspace connected to the platform');
    const text = `✅ <@${userId}> connected this workspace to the campaign platform${company ? ` (*${literal(company)}*)` : ''} with key \`${maskKey(apiKey)}\`.`;
    if (extra[ORIGIN] === HOME_ORIGIN) {
      return {
        kind: 'done',
        view: modal({
          callbackId: 'connect_done',
          title: TITLE,
          blocks: [section(text), context('Try `/campaign stats` in any channel.')],
        }),
        after: () => deps.surfaces.publishHome(client, teamId, userId),
      };
    }
    return { kind: 'done', announce: message(text, [section(text), context('Try `/campaign stats`.')]) };
  } catch (err) {
    logFailure(logger, err, { key: maskKey(apiKey) }, 'API key verification failed');
    if (err instanceof AuthenticationError) {
      const sentence = 'The platform rejected this key. Copy it again from Settings › API Keys in the portal.';
      return { kind: 'invalid', errors: { [KEY_BLOCK]: sentence }, sentence };
    }
    return { kind: 'invalid', errors: {}, sentence: failureText(failureOf(err)) };
  }
}
