/**
 * `/campaign sample <event> <campaignId>`: asks the platform for a sample event built from a real campaign
 * (GET /events-gateway/trigger/perform/{event}) and shows it exactly as a real delivery would be posted,
 * marked as a sample. For call_completed the transcript follows as a second message (in a channel it goes
 * into the card's thread).
 */
import { z } from 'zod';
import { sealCallDetails } from '../events/call-details.js';
import { markAsSample, renderEvent, renderTranscript } from '../events/render/index.js';
import { renderConversationCard } from '../handoff/card.js';
import { parseEvent, sealRecording, SUBSCRIBABLE_TRIGGERS } from '../events/index.js';
import { parseEventNames } from '../events/subscription-text.js';
import { context, escapeMrkdwn, message } from '../slack/blocks.js';
import { askAbout, chooseCampaign, code } from './campaign-ref.js';
import type { Subcommand } from './types.js';

/** The sample's envelope is undocumented: a delivery-shaped array, a bare event, or `{ value: [...] }`. */
const envelope = z.union([
  z
    .array(z.unknown())
    .min(1)
    .transform((a) => a[0]),
  z.looseObject({ value: z.array(z.unknown()).min(1) }).transform((v) => v.value[0]),
]);

export const sample: Subcommand = {
  name: 'sample',
  usage: 'sample <event> <campaignId>',
  summary: 'preview how an event is posted, with a sample from the platform',
  readOnly: true,
  audience: 'members',
  args: { min: 2, max: 13 },
  async run(ctx) {
    const [eventName = '', ...campaignWords] = ctx.args;
    const names = parseEventNames([eventName], SUBSCRIBABLE_TRIGGERS);
    if (!names.ok) return ctx.tell(names.sentence);
    const trigger = names.events[0];
    if (!trigger) return ctx.tell(`Usage: \`/campaign ${escapeMrkdwn(sample.usage)}\``);
    const choice = await chooseCampaign(ctx.deps, ctx.teamId, campaignWords.join(' '));
    if (!choice.ok) return ctx.tell(choice.sentence);
    const target = choice.target;
    const campaignId = target.id;

    const api = await ctx.deps.platform.clientFor(ctx.teamId);
    const body = await askAbout(ctx, target, `The platform has no campaign ${code(campaignId)}.`, () =>
      api.webhooks.sample(trigger, campaignId),
    );
    if (body === undefined) return;
    const unwrapped = envelope.safeParse(body);
    const parsed = parseEvent(unwrapped.success ? unwrapped.data : body, trigger);
    if (!parsed.ok || !parsed.event.known) {
      ctx.logger.warn(
        { trigger, problem: parsed.ok ? 'not a known event' : parsed.problem },
        'sample event did not validate',
      );
      return ctx.tell(
        `The platform’s sample \`${trigger}\` event has a shape this app does not understand, so it can’t be previewed — tell your Slack admin (the details are in the app logs).`,
      );
    }
    const event = parsed.event;
    // Built from the real campaign: its name, type and agent are the platform's own.
    await ctx.deps.store.catalog
      .noteSighting(ctx.teamId, { ...event.data, campaignId: event.data.campaignId ?? campaignId })
      .catch((err: unknown) => ctx.logger.warn({ err }, 'could not record the sample’s campaign in the catalog'));
    // Built from a real campaign, so it may carry a real customer: shown as the answer's readers may see them.
    const view = await ctx.customerView();
    if (event.trigger === 'message_received' || event.trigger === 'message_sent') {
      // A chat message is a line in its conversation's thread, under the conversation's card.
      const d = view.fields(event.data);
      const card = renderConversationCard({
        campaignId: d.campaignId ?? campaignId,
        customerNumber: d.customerNumber ?? '',
        facts: {
          customerName: d.customerName,
          campaignName: d.campaignName,
          agentName: d.agentName,
          campaignType: d.campaignType,
        },
        sessionId: d.sessionId,
        state: 'open',
      });
      await ctx.reply(markAsSample(card, trigger));
      const line = renderEvent(event, view);
      await ctx.reply(
        message(`[Sample] ${line.text}`, [
          context('🧪 In a channel this goes into the card’s thread:'),
          ...line.blocks,
        ]),
      );
      return;
    }
    const { secrets, routes } = ctx.deps.store;
    const buttons =
      event.trigger === 'call_completed'
        ? {
            recording: sealRecording(secrets, ctx.teamId, event.data.audioUrl),
            // The card this channel's calls get: short unless a call route here says `cards:full`.
            details: (await routes.fullCards(ctx.teamId, ctx.channelId))
              ? undefined
              : sealCallDetails(secrets, ctx.teamId, view.fields(event.data)),
          }
        : undefined;
    await ctx.reply(markAsSample(renderEvent(event, view, buttons), trigger));

    if (event.trigger === 'call_completed') {
      const transcript = renderTranscript(view.fields(event.data));
      if (transcript?.kind === 'message') {
        await ctx.reply(
          message(`[Sample] ${transcript.payload.text}`, [
            context('🧪 In a channel this goes into the card’s thread:'),
            ...transcript.payload.blocks,
          ]),
        );
      } else if (transcript) {
        await ctx.reply(
          message('[Sample] transcript file', [
            context(
              `🧪 In a channel, the card’s thread gets the transcript as a file (\`${transcript.filename}\`): ${transcript.comment}`,
            ),
          ]),
        );
      }
    }
  },
};
