/**
 * A call's recording, opened through the bot. The audio's address (`audioUrl`) may carry the customer's number
 * or e-mail, and the audio holds their voice and whatever they said: neither belongs on a card that guests or
 * another organisation read. So the card's ▶️ Recording button carries the address sealed (AES-256-GCM with the
 * store's secrets key, bound to the workspace: a card's blocks are readable through Slack's API by anyone in the
 * channel), and a press asks the bot, which checks who pressed — a full member gets the link privately (an
 * ephemeral message, seen by them alone), anyone else one sentence — through the press's `response_url`
 * (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload).
 */
import type { App } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { customerDataRefusal } from '../app/membership.js';
import { actions, button, LIMITS, section } from '../slack/blocks.js';
import { httpsUrl } from '../slack/text.js';
import type { SecretBox } from '../store/index.js';
import { onSealedButton } from './sealed-button.js';

/** The card's button (cards posted before it went through the bot carry a link under the same id). */
export const RECORDING_ACTION = 'call_recording_open';
/** The link in the private answer: Slack opens it, and still sends a block action we acknowledge. */
const LINK_ACTION = 'call_recording_link';

/** What the recording's address is sealed for: this workspace's cards. */
const bound = (teamId: string) => `call-recording:${teamId}`;

/**
 * The Recording button's value for a call of `teamId`: its https address sealed, or undefined when it has none
 * (or one too long to seal into Slack's 2,000 characters of a button value).
 */
export function sealRecording(secrets: SecretBox, teamId: string, audioUrl: string | undefined): string | undefined {
  const url = httpsUrl(audioUrl);
  if (!url) return undefined;
  const sealed = secrets.seal(url, bound(teamId));
  return sealed.length <= LIMITS.buttonValue ? sealed : undefined;
}

export function registerRecordingButton(app: App, deps: Pick<Deps, 'members' | 'store' | 'logger'>): void {
  app.action(LINK_ACTION, async ({ ack }) => {
    await ack();
  });
  onSealedButton(app, deps, RECORDING_ACTION, bound, async ({ ws, body, client, opened, answer }) => {
    const refusal = await deps.members.refusal(client, ws, body.user.id);
    if (refusal) {
      deps.logger.info({ team: ws.teamId, user: body.user.id, refusal }, 'call recording refused: not a full member');
      await answer(customerDataRefusal('This call’s recording', refusal));
      return;
    }
    const url = httpsUrl(opened);
    if (!url) {
      await answer(
        'This Recording button no longer opens (it was sealed with a key the bot does not have any more); the recording is still on the campaign platform.',
      );
      return;
    }
    deps.logger.info({ team: ws.teamId, user: body.user.id }, 'call recording opened');
    const text = '🎧 The call’s recording — this link is shown to you only.';
    await answer(text, [section(text), actions([button('▶️ Open the recording', LINK_ACTION, { url })])]);
  });
}
