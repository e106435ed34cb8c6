/**
 * `/campaign handoff-sla <minutes> [@user-group|none]` (admins): how long a customer in this channel's handoff
 * threads may wait for an answer before the thread is nudged, and which user group the nudge mentions when
 * nobody claimed the conversation. `handoff-sla` alone shows the channel's setting. Minutes alone keep the
 * user group; `none` removes it.
 */
import { nameOf } from '../events/mentions.js';
import { SLA_TIMER, slaTimerId } from '../handoff/waiting.js';
import type { Subcommand } from './types.js';

/** Slack escapes a user group mention as `<!subteam^S123|@support>` (manifest: should_escape). */
const USER_GROUP = /^<!subteam\^([A-Z0-9]+)(?:\|([^>]*))?>$/;
const MAX_MINUTES = 7 * 24 * 60;

export const handoffSla: Subcommand = {
  name: 'handoff-sla',
  usage: 'handoff-sla [<minutes> [@user-group|none]]',
  summary: 'how long customers in this channel wait before a nudge, and who is nudged',
  admin: true,
  args: { min: 0, max: 2 },
  inChannel: 'Run it in the channel whose handoff conversations it sets — a direct message has none.',
  async run(ctx) {
    const repo = ctx.deps.store.handoffSla;
    const current = await repo.get(ctx.teamId, ctx.channelId);
    const [minutesArg, groupArg] = ctx.args;
    if (minutesArg === undefined) {
      const minutes = Math.round((current?.slaS ?? ctx.deps.config.handoff.slaS) / 60);
      await ctx.tell(
        `In <#${ctx.channelId}>, a customer waiting more than ${minutes} min for an answer gets a nudge in the thread, mentioning the conversation’s owner` +
          (current?.userGroup
            ? ` or ${nameOf(current.userGroup, current.userGroupName)} when nobody claimed it.`
            : ' (nobody when it is unclaimed).') +
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
    if (groupArg !== undefined) {
      if (groupArg.toLowerCase() === 'none') userGroup = userGroupName = undefined;
      else {
        const picked = USER_GROUP.exec(groupArg);
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
    const slaS = Number(minutesArg) * 60;
    await repo.set(ctx.teamId, ctx.channelId, {
      slaS,
      ...(userGroup ? { userGroup, ...(userGroupName ? { userGroupName } : {}) } : {}),
    });
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
    ctx.logger.info({ channel: ctx.channelId, slaS, userGroup, waitingNow: moved }, 'handoff SLA set for a channel');
    await ctx.tell(
      `✅ In <#${ctx.channelId}>, a customer waiting more than ${minutesArg} min for an answer now gets one nudge in the thread, mentioning the conversation’s owner` +
        (userGroup
          ? ` or ${nameOf(userGroup, userGroupName)} when nobody claimed it.`
          : ' (nobody when it is unclaimed).'),
    );
  },
};
