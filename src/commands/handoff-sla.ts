/**
 * `/campaign handoff-sla <minutes> [@user-group|none] [page:new|late|both] [assign:round-robin|least-busy|off]`
 * (admins): how long a customer in this channel's handoff threads may wait for an answer before the thread is
 * nudged, which user group is paged, and when — `new`: a new conversation's card mentions it as it arrives
 * (assigned or not);
 * `late`: the nudge mentions it when nobody claimed the conversation; `both` (the default with a group) — and
 * whether each new conversation is handed to an agent on shift (`/campaign shift on`), in turn or to the least
 * busy. `handoff-sla` alone shows the channel's setting. Minutes alone keep the user group, when it is paged
 * and the assignment; `none` removes the group, `assign:off` the assignment.
 */
import { nameOf } from '../events/mentions.js';
import { SLA_TIMER, slaTimerId } from '../handoff/waiting.js';
import {
  ASSIGN_MODES,
  PAGE_WHEN,
  pagedOnArrival,
  pagedWhenLate,
  type AssignMode,
  type ChannelSla,
  type PageWhen,
} from '../store/index.js';
import type { Subcommand } from './types.js';

/** Slack escapes a user group mention as `<!subteam^S123|@support>` (manifest: should_escape). */
const USER_GROUP = /^<!subteam\^([A-Z0-9]+)(?:\|([^>]*))?>$/;
const PAGE = /^page:(.*)$/i;
const ASSIGN = /^assign:(.*)$/i;
const MAX_MINUTES = 7 * 24 * 60;

export const handoffSla: Subcommand = {
  name: 'handoff-sla',
  usage: 'handoff-sla [<minutes> [@user-group|none] [page:new|late|both] [assign:round-robin|least-busy|off]]',
  summary:
    'how long customers in this channel wait before a nudge, which group is paged (as a chat arrives, when it is late, or both), and whether new chats go to an agent on shift',
  admin: true,
  args: { min: 0, max: 4 },
  inChannel: 'Run it in the channel whose handoff conversations it sets — a direct message has none.',
  async run(ctx) {
    const repo = ctx.deps.store.handoffSla;
    const current = await repo.get(ctx.teamId, ctx.channelId);
    const [minutesArg, ...rest] = ctx.args;
    if (minutesArg === undefined) {
      const minutes = Math.round((current?.slaS ?? ctx.deps.config.handoff.slaS) / 60);
      await ctx.tell(
        describe(ctx.channelId, minutes, current, '') +
          (current
            ? ''
            : ' That is the app’s default; change it with `/campaign handoff-sla &lt;minutes&gt; @user-group`.'),
      );
      return;
    }
    if (!/^\d{1,5}$/.test(minutesArg) || Number(minutesArg) < 1 || Number(minutesArg) > MAX_MINUTES) {
      await ctx.tell(
        `Give the minutes as a whole number from 1 to ${MAX_MINUTES}, e.g. \`/campaign handoff-sla 10 @support\`.`,
      );
      return;
    }
    let userGroup = current?.userGroup;
    let userGroupName = current?.userGroupName;
    let page: PageWhen | undefined = current?.page;
    let assign: AssignMode | undefined = current?.assign;
    for (const arg of rest) {
      const assignWord = ASSIGN.exec(arg)?.[1]?.toLowerCase();
      if (assignWord !== undefined) {
        if (assignWord === 'off') assign = undefined;
        else {
          assign = ASSIGN_MODES.find((m) => m === assignWord);
          if (!assign) {
            await ctx.tell(
              '`assign:` takes `round-robin` (agents on shift in turn), `least-busy` (the one with the fewest open conversations) or `off`, e.g. `/campaign handoff-sla 5 @support assign:round-robin`. Nothing changed.',
            );
            return;
          }
        }
        continue;
      }
      const pageWord = PAGE.exec(arg)?.[1];
      if (pageWord !== undefined) {
        const picked = PAGE_WHEN.find((p) => p === pageWord.toLowerCase());
        if (!picked) {
          await ctx.tell(
            '`page:` takes `new` (as a chat arrives), `late` (when nobody claimed it past the answer time) or `both`, e.g. `/campaign handoff-sla 5 @support page:new`. Nothing changed.',
          );
          return;
        }
        page = picked;
      } else if (arg.toLowerCase() === 'none') userGroup = userGroupName = undefined;
      else {
        const picked = USER_GROUP.exec(arg);
        userGroup = picked?.[1];
        userGroupName = picked?.[2]?.trim() || undefined;
        if (!userGroup) {
          await ctx.tell(
            'Mention a Slack user group, e.g. `/campaign handoff-sla 10 @support` (Slack completes it as you type), or `none` to mention nobody.',
          );
          return;
        }
      }
    }
    if (!userGroup && rest.some((a) => PAGE.test(a))) {
      await ctx.tell(
        '`page:` says when a user group is paged, and this channel has none: name one, e.g. `/campaign handoff-sla 5 @support page:new`. Nothing changed.',
      );
      return;
    }
    const slaS = Number(minutesArg) * 60;
    const setting: ChannelSla = {
      ...(userGroup
        ? { slaS, userGroup, ...(userGroupName ? { userGroupName } : {}), page: page ?? 'both' }
        : { slaS }),
      ...(assign ? { assign } : {}),
    };
    await repo.set(ctx.teamId, ctx.channelId, setting);
    // Customers already waiting here are held to the new time too (unless nudged already).
    let moved = 0;
    for (const t of await ctx.deps.store.conversations.openThreads(ctx.teamId)) {
      if (t.channelId !== ctx.channelId || t.waitingSince === undefined || t.overdue) continue;
      await ctx.deps.store.timers.set(
        SLA_TIMER,
        slaTimerId(ctx.teamId, t.channelId, t.threadTs),
        t.waitingSince + slaS * 1000,
      );
      moved++;
    }
    ctx.logger.info(
      { channel: ctx.channelId, slaS, userGroup, page: setting.page, assign, waitingNow: moved },
      'handoff SLA set for a channel',
    );
    await ctx.tell(describe(ctx.channelId, Number(minutesArg), setting, '✅ '));
  },
};

/**
 * The setting in words, saying who is paged as a chat arrives and who when it is late — exactly what the card
 * (`threads.ts`) and the nudge (`waiting.ts`) then do. The group is named as text (`@support`), never mentioned:
 * showing it pages nobody.
 */
function describe(channelId: string, minutes: number, sla: ChannelSla | undefined, lead: string): string {
  const group = sla?.userGroup ? nameOf(sla.userGroup, sla.userGroupName) : undefined;
  const page = group ? ` (\`page:${sla?.page ?? 'both'}\`)` : '';
  const onArrival = pagedOnArrival(sla) ? group : undefined;
  const agent =
    sla?.assign === 'round-robin'
      ? 'the agent on shift it is assigned to, in turn (`assign:round-robin`)'
      : sla?.assign === 'least-busy'
        ? 'the agent on shift it is assigned to, the one with the fewest open conversations (`assign:least-busy`)'
        : undefined;
  const arrival = agent
    ? `${onArrival ? `${onArrival} and ` : ''}${agent} — with nobody on shift, ${onArrival ? `${onArrival} alone` : 'nobody'}, and the card says so`
    : (onArrival ?? 'nobody');
  const late = pagedWhenLate(sla)
    ? `the conversation’s owner, or ${group} while nobody claimed it`
    : 'the conversation’s owner, or nobody while it is unclaimed';
  const shift = agent ? ' `/campaign shift` shows who is on shift.' : '';
  return (
    `${lead}In <#${channelId}>, a customer waiting more than ${minutes} min for an answer ${lead ? 'now gets one nudge' : 'gets a nudge'} in the thread. ` +
    `Paged as a chat arrives: ${arrival}${page}. Paged when it is late: ${late}${page}.${shift}`
  );
}
