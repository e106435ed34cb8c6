/**
 * The digest's chart: its figures taken with the card's, drawn when it is shared into the channel right below
 * the card with Slack's external upload (`filesUploadV2`: files.getUploadURLExternal →
 * upload → files.completeUploadExternal with `channel_id`), where Slack shows the image itself. A top-level
 * share, not a thread reply: managers see the chart without opening anything.
 *
 * A chart that cannot be made or shared never holds the card back: it is logged, and for a posted card one
 * line in its thread says the chart is missing this time.
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import type { QuotaRow } from '../api/index.js';
import type { Logger } from '../logger.js';
import type { DigestFigures } from '../store/index.js';
import { message, section } from '../slack/blocks.js';
import { postMessage, slackErrorCode } from '../slack/post.js';
import { renderChart } from './chart.js';
import { chartAltText, chartInput, hasFigures, CHART_DAYS, type ChartInput } from './chart-data.js';
import { snapshotZone } from './period.js';

/** Where a chart goes: below its card. */
export interface ChartPlace {
  channelId: string;
  cardTs: string;
  title: string;
  day: string;
}

/** A scheduled digest's chart waiting in its channel's outbox, after its card. */
export interface WaitingChart {
  at: ChartPlace;
  input: ChartInput;
}

/** The chart's figures; undefined when there is nothing to chart (no daily figures and no quota rows). */
export async function chartFigures(
  deps: Deps,
  teamId: string,
  figures: { snapshots: readonly DigestFigures[]; quota: readonly QuotaRow[] | undefined; now: number },
): Promise<ChartInput | undefined> {
  const zone = snapshotZone((await deps.store.reports.digests(teamId)).map((d) => d.schedule));
  const input = chartInput(figures.snapshots, zone, figures.now, figures.quota);
  return hasFigures(input) ? input : undefined;
}

/** The PNG, or undefined when rendering failed (the card then says so in its thread). */
async function draw(logger: Logger, input: ChartInput): Promise<Buffer | undefined> {
  const started = performance.now();
  try {
    const png = await renderChart(input);
    logger.info({ bytes: png.length, renderMs: Math.round(performance.now() - started) }, 'digest chart rendered');
    return png;
  } catch (err) {
    logger.error({ err }, 'digest chart could not be rendered; the digest stands without it');
    return undefined;
  }
}

/**
 * Draws the chart and shares it below the posted card; returns whether it was shared. Never throws, but for
 * the answers `waits` says only ask to wait (nothing was done: the outbox posts it later).
 */
export async function shareChart(
  client: WebClient,
  logger: Logger,
  at: ChartPlace,
  input: ChartInput,
  waits: (err: unknown) => boolean = () => false,
): Promise<boolean> {
  const png = await draw(logger, input);
  if (png) {
    try {
      await client.filesUploadV2({
        channel_id: at.channelId,
        file: png,
        filename: `digest-${at.day}.png`,
        title: `${at.title} · ${at.day}`,
        alt_text: chartAltText(input),
        initial_comment: `📈 ${at.title}: calls and connected share per day (last ${CHART_DAYS} days), quota used per month`,
      });
      return true;
    } catch (err) {
      if (waits(err)) throw err;
      logger.warn(
        { err, slackError: slackErrorCode(err) },
        'digest chart could not be shared; the card stands without it',
      );
    }
  }
  try {
    const line = 'The chart could not be attached to this digest this time; the next digest tries again.';
    await postMessage(client, { channel: at.channelId, threadTs: at.cardTs }, message(line, [section(line)]));
  } catch (err) {
    if (waits(err)) throw err;
    logger.warn({ err, slackError: slackErrorCode(err) }, 'could not say in the thread that the chart is missing');
  }
  return false;
}
