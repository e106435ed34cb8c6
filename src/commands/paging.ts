/**
 * Lists longer than one Slack message are paged: the message shows one page and Previous/Next
 * buttons; a click re-reads the list and replaces the message with the asked page.
 */
import type { App, BlockButtonAction, AllMiddlewareArgs, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import type { Deps } from '../app/deps.js';
import type { CampaignClient } from '../api/index.js';
import { actions, button, context, escapeMrkdwn, type KnownBlock, type MessagePayload } from '../slack/blocks.js';
import { parseJsonValue } from '../slack/json-value.js';
import { failureMessage, failureOf, logFailure, type FailureWording } from '../app/failure.js';
import { customerDataRefusal } from '../app/membership.js';
import type { Subcommand } from './types.js';
import type { CustomerView } from '../app/customer-view.js';
import { answerView } from './answer-view.js';

export interface Page<T> {
  items: T[];
  /** Zero-based. */
  page: number;
  pages: number;
  total: number;
  firstIndex: number;
}

export function paginate<T>(all: readonly T[], page: number, size: number): Page<T> {
  const pages = Math.max(1, Math.ceil(all.length / size));
  const p = Math.min(Math.max(0, Math.trunc(page)), pages - 1);
  return { items: all.slice(p * size, (p + 1) * size), page: p, pages, total: all.length, firstIndex: p * size };
}

const pageValue = z.object({
  id: z.string().max(200),
  name: z.string().max(200).optional(),
  page: z.number().int().min(0),
});

/** What a paged list is about: a campaign's id, and its name when the bot knows it (the list's title shows it). */
export interface PageSubject {
  id: string;
  name?: string;
}

/**
 * The footer of a paged list: where we are, and buttons to move. Each button has its own action_id
 * (`<base>:prev`, `<base>:next`): Slack refuses a block that repeats one.
 */
export function pagerBlocks(actionId: string, subject: PageSubject, page: Page<unknown>, noun: string): KnownBlock[] {
  const shown = `Showing ${page.firstIndex + 1}–${page.firstIndex + page.items.length} of ${page.total} ${noun}`;
  if (page.pages <= 1) return [context(shown)];
  const buttons = [];
  const value = (to: number) => JSON.stringify({ id: subject.id, name: subject.name?.slice(0, 200), page: to });
  if (page.page > 0) buttons.push(button('◀ Previous', `${actionId}:prev`, { value: value(page.page - 1) }));
  if (page.page < page.pages - 1) buttons.push(button('Next ▶', `${actionId}:next`, { value: value(page.page + 1) }));
  return [context(`${shown} · page ${page.page + 1} of ${page.pages}`), actions(buttons)];
}

/** Both buttons of a pager, and the bare base id that lists posted before the split still carry. */
function pagerActionIds(actionId: string): RegExp {
  return new RegExp(`^${actionId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?::prev|:next)?$`);
}

/** The paged lists are a campaign's: a 404 from the platform means the campaign id is wrong. */
export function campaignNotFound(campaignId: string): FailureWording {
  return { notFound: `Campaign \`${escapeMrkdwn(campaignId)}\` was not found on the platform.` };
}

/**
 * Registers the button handler of one paged list of `sub`. `render` re-reads the data for the asked page. The
 * subcommand's audience holds for each press too: a list posted with `--public` can be paged by anyone in the
 * channel, and a list of customers is paged only by full members.
 */
export function registerPager(
  app: App,
  deps: Deps,
  sub: Pick<Subcommand, 'name' | 'audience'>,
  actionId: string,
  render: (client: CampaignClient, subject: PageSubject, page: number, view: CustomerView) => Promise<MessagePayload>,
  wording: (id: string) => FailureWording = () => ({}),
): void {
  app.action<BlockButtonAction>(
    pagerActionIds(actionId),
    async ({
      ack,
      action,
      body,
      respond,
      client: slack,
      context,
    }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
      await ack();
      const ws = {
        teamId: context.teamId ?? body.team?.id ?? body.user.team_id ?? '',
        enterpriseId: context.enterpriseId ?? body.enterprise?.id ?? body.team?.enterprise_id,
      };
      if (sub.audience === 'members') {
        const refusal = await deps.members.refusal(slack, ws, body.user.id);
        if (refusal) {
          await respond({
            response_type: 'ephemeral',
            replace_original: false,
            text: customerDataRefusal(`\`/campaign ${sub.name}\``, refusal),
          });
          return;
        }
      }
      const parsed = parseJsonValue(action.value, pageValue);
      if (!parsed) {
        await respond({
          response_type: 'ephemeral',
          replace_original: false,
          text: 'That button is out of date — run the command again.',
        });
        return;
      }
      const { id, name, page } = parsed;
      const teamId = body.team?.id ?? body.user.team_id ?? '';
      try {
        // The page replaces the list where it is: a list posted in the channel is read by everyone there. The
        // container says which (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload).
        const container = body.container as { is_ephemeral?: unknown; channel_id?: unknown };
        const view = await answerView(deps, slack, ws, {
          inChannel: container.is_ephemeral !== true,
          channelId: body.channel?.id ?? (typeof container.channel_id === 'string' ? container.channel_id : undefined),
        });
        const client = await deps.platform.clientFor(teamId);
        await respond({
          replace_original: true,
          ...(await render(client, { id, ...(name !== undefined ? { name } : {}) }, page, view)),
        });
      } catch (err) {
        logFailure(deps.logger, err, { actionId, team: teamId }, 'paging failed');
        await respond({
          response_type: 'ephemeral',
          replace_original: false,
          ...failureMessage(failureOf(err, wording(id))),
        });
      }
    },
  );
}
