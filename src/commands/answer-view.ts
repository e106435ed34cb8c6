/**
 * How a command's answer may show customers. A private answer (ephemeral) is read by the one who asked, whom
 * the membership gate let through: in full. An answer in the channel — `--public`, or a page of one — is read
 * by everyone there, so it is judged as the bot's posts there are: masked where a guest or another organisation
 * reads along, unless an admin said `customers:full` for the channel.
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import { customerView, type CustomerView } from '../app/customer-view.js';
import type { Workspace } from '../app/membership.js';

export async function answerView(
  deps: Pick<Deps, 'audiences'>,
  client: WebClient,
  ws: Workspace,
  answer: { inChannel: boolean; channelId: string | undefined },
): Promise<CustomerView> {
  if (!answer.inChannel) return customerView(true);
  // A channel answer nobody can place is masked: who reads it is unknown.
  if (!answer.channelId) return customerView(false);
  return deps.audiences.viewFor(client, ws, answer.channelId);
}
