/**
 * `/campaign shift on|off` (full members): I am taking customer chats now, or I stop. Per workspace, kept in the
 * store (every replica sees the same roster). In channels whose `handoff-sla` says `assign:`, new conversations
 * go to the agents on shift; going off shift hands your open conversations back (`handoff/shift-handback.ts`).
 * `shift` alone shows who is on shift. Only full members may be on shift: they are handed customer chats.
 */
import type { Refusal } from '../app/membership.js';
import { handBack } from '../handoff/shift-handback.js';
import { onShiftLine } from '../handoff/open-list.js';
import type { Subcommand } from './types.js';

export const shift: Subcommand = {
  name: 'shift',
  usage: 'shift [on|off]',
  summary: 'take customer chats now (`on`) or stop (`off`): channels that assign hand new chats to whoever is on shift',
  audience: 'members',
  refusal: shiftRefusal,
  args: { min: 0, max: 1 },
  async run(ctx) {
    const shifts = ctx.deps.store.shifts;
    const word = ctx.args[0]?.toLowerCase();
    if (word === undefined) {
      const roster = await shifts.onShift(ctx.teamId);
      const you = roster.some((a) => a.user === ctx.userId);
      await ctx.tell(
        roster.length === 0 || you
          ? onShiftLine(roster, ctx.userId)
          : `${onShiftLine(roster)} \`/campaign shift on\` to join them.`,
      );
      return;
    }
    if (word === 'on') {
      const started = await shifts.start(ctx.teamId, ctx.userId);
      if (started) ctx.logger.info('agent went on shift');
      const roster = await shifts.onShift(ctx.teamId);
      await ctx.tell(
        (started ? '🟢 You are on shift: ' : 'You were already on shift: ') +
          'new conversations in channels that assign them (`/campaign handoff-sla … assign:round-robin`) can be handed to you. ' +
          `\`/campaign shift off\` when you stop. ${onShiftLine(roster)}`,
      );
      return;
    }
    if (word === 'off') {
      if (!(await shifts.end(ctx.teamId, ctx.userId))) {
        await ctx.tell('You are not on shift, so nothing changed. `/campaign shift on` when you take chats.');
        return;
      }
      const back = await handBack(ctx.deps.store, ctx.deps.bulk, ctx.teamId, ctx.userId, ctx.logger);
      ctx.logger.info({ returned: back.returned, reassigned: back.reassigned }, 'agent went off shift');
      const unassigned = back.returned - back.reassigned;
      const moved =
        back.returned === 0
          ? 'You had no open conversation to hand back.'
          : `Your ${back.returned} open conversation${back.returned === 1 ? '' : 's'} went back to the pool` +
            (back.reassigned > 0 ? `: ${back.reassigned} handed to agents on shift` : '') +
            (unassigned > 0 ? `${back.reassigned > 0 ? ',' : ':'} ${unassigned} unclaimed, for anyone to claim` : '') +
            '.';
      await ctx.tell(`⚪ You are off shift. ${moved}`);
      return;
    }
    await ctx.tell('`/campaign shift` takes `on` or `off` (or nothing, to see who is on shift).');
  },
};

function shiftRefusal(refusal: Refusal): string {
  switch (refusal) {
    case 'guest':
      return 'Only full members of this workspace can go on shift — agents on shift are handed customer chats, and guests can’t answer them.';
    case 'external':
      return 'Only members of the workspace that runs these campaigns can go on shift, and you are here from another organisation.';
    case 'deactivated':
      return 'Only active members of this workspace can go on shift, and your account is deactivated here.';
    case 'unknown':
      return 'Slack could not confirm just now that you are a full member of this workspace, so your shift did not change — try again in a minute.';
  }
}
