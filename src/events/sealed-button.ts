/** A card button whose value is sealed for one workspace's cards (call-details.ts, recording-button.ts say why). */
import type { AllMiddlewareArgs, App, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import type { KnownBlock } from '../slack/blocks.js';

type Press = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

export interface SealedPress extends Pick<Press, 'body' | 'client'> {
  ws: { teamId: string; enterpriseId: string | undefined };
  /** The value opened; undefined when no key the bot still has opens it. */
  opened: string | undefined;
  /** A private answer to the one who pressed. */
  answer: (text: string, blocks?: KnownBlock[]) => Promise<unknown>;
}

/** Presses of the `actionId` button, acknowledged; one without a value (a card from before) opens nothing. */
export function onSealedButton(
  app: App,
  deps: Pick<Deps, 'store'>,
  actionId: string,
  bound: (teamId: string) => string,
  press: (p: SealedPress) => Promise<void>,
): void {
  app.action<BlockButtonAction>(actionId, async ({ ack, action, body, respond, client, context }: Press) => {
    await ack();
    if (!action.value) return;
    const ws = {
      teamId: context.teamId ?? body.team?.id ?? body.user.team_id ?? '',
      enterpriseId: context.enterpriseId ?? body.enterprise?.id ?? body.team?.enterprise_id,
    };
    let opened: string | undefined;
    try {
      opened = deps.store.secrets.open(action.value, bound(ws.teamId));
    } catch {
      opened = undefined;
    }
    const answer = (text: string, blocks?: KnownBlock[]) =>
      respond({ response_type: 'ephemeral', replace_original: false, text, ...(blocks ? { blocks } : {}) });
    await press({ ws, body, client, opened, answer });
  });
}
