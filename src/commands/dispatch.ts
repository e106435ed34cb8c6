/**
 * The `/campaign` listener: ack at once, then parse, gate and run the subcommand.
 *
 * Slack gives 3 s to ack. We ack before any I/O (no store read, no platform call), and every answer
 * follows through `respond()` — so a slow platform delays the answer, never the ack. When the answer is not
 * on its way within SLOW_NOTICE_MS the user is told the platform is slow; the answer follows when it comes.
 */
import { adminsOnly } from '../app/admin-gate.js';
import { escapeMrkdwn } from '../slack/blocks.js';
import { randomUUID } from 'node:crypto';
import type { AllMiddlewareArgs, RespondFn, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { parseCommandText } from './arguments.js';
import { failureMessage, failureOf, logFailure } from '../app/failure.js';
import { customerDataRefusal } from '../app/membership.js';
import { renderHelp } from './help.js';
import { answerView } from './answer-view.js';
import type { CommandContext, Subcommand } from './types.js';
import type { FailureWording } from '../app/failure.js';
import { ATTR, inSpan, SpanKind } from '../util/spans.js';

/** Well under 3 s, so the notice reaches the user within them even when the machine is busy. */
export const SLOW_NOTICE_MS = 2_000;
export const SLOW_NOTICE =
  'Still working on it: the campaign platform is slow to answer right now. I’ll post the result here as soon as it does.';

/**
 * `respond`, plus the slow notice: sent once `afterMs` pass with nothing answered; an answer sent after it
 * waits for it, so the two reach the user in that order. `done()` cancels a notice not yet due.
 */
function withSlowNotice(
  respond: RespondFn,
  afterMs: number,
  onError: (err: unknown) => void,
): { respond: RespondFn; done(): void } {
  let answered = false;
  let notice: Promise<unknown> | undefined;
  const timer = setTimeout(() => {
    if (answered) return;
    notice = respond({ response_type: 'ephemeral', text: SLOW_NOTICE }).catch(onError);
  }, afterMs);
  return {
    respond: async (message) => {
      answered = true;
      clearTimeout(timer);
      if (notice) await notice;
      return respond(message);
    },
    done: () => clearTimeout(timer),
  };
}

export function createDispatcher(commands: readonly Subcommand[], deps: Deps) {
  const byName = new Map(commands.map((c) => [c.name, c]));

  const dispatch = async (args: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await args.ack();
    const { command } = args;
    // The subcommand's name only when it is one of ours: the text itself is the user's.
    const name = parseCommandText(command.text).name || 'help';
    const attributes = { [ATTR.team]: command.team_id, [ATTR.subcommand]: byName.has(name) ? name : 'help' };
    await inSpan('command /campaign', { kind: SpanKind.SERVER, attributes }, () => handle(args));
  };

  async function handle({
    command,
    respond: respondUntraced,
    client,
    context,
  }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> {
    const parsed = parseCommandText(command.text);
    // The answer through response_url (its URL is a secret of the command's: never on the span).
    const respondNow: RespondFn = (message) =>
      inSpan('command reply', { kind: SpanKind.CLIENT }, () => respondUntraced(message));
    // `req` ties together every line one command writes (its platform calls, its failure).
    const logger = deps.logger.child({
      req: randomUUID().slice(0, 8),
      team: command.team_id,
      user: command.user_id,
      subcommand: parsed.name || 'help',
    });
    const slow = withSlowNotice(respondNow, deps.slowNoticeMs ?? SLOW_NOTICE_MS, (err) =>
      logger.warn({ err }, 'could not tell the user the platform is slow'),
    );
    const respond = slow.respond;
    const tell = async (sentence: string) => {
      await respond({ response_type: 'ephemeral', text: sentence });
    };
    const tellFailure = async (err: unknown, wording?: FailureWording, lead?: string) => {
      await respond({ response_type: 'ephemeral', ...failureMessage(failureOf(err, wording), lead) });
    };

    if (parsed.name === '' || parsed.name === 'help') {
      await respond({ response_type: 'ephemeral', ...renderHelp(commands) });
      return;
    }
    const sub = byName.get(parsed.name);
    if (!sub) {
      await respond({ response_type: 'ephemeral', ...renderHelp(commands, parsed.name) });
      return;
    }
    if (sub.inChannel && isDirectMessage(command)) {
      await tell(`\`/campaign ${sub.name}\` works in a channel. ${sub.inChannel}`);
      return;
    }
    const isPublic = !sub.freeText && parsed.flags.has('public');
    if (isPublic && !sub.readOnly) {
      await tell(`\`--public\` works only with read commands; \`/campaign ${sub.name}\` always answers privately.`);
      return;
    }
    if (!sub.freeText && (parsed.args.length < sub.args.min || parsed.args.length > sub.args.max)) {
      await tell(`Usage: \`/campaign ${escapeMrkdwn(sub.usage)}\``);
      return;
    }

    // The workspace the app is installed in, as Bolt authorized the request (in a shared channel the payload's
    // team can be another one); it decides who counts as a member.
    const ws = {
      teamId: context.teamId ?? command.team_id,
      enterpriseId: context.enterpriseId ?? command.enterprise_id,
    };
    const ctx: CommandContext = {
      args: sub.freeText ? parsed.words : parsed.args,
      text: parsed.rest,
      isPublic,
      teamId: command.team_id,
      enterpriseId: context.enterpriseId ?? command.enterprise_id,
      userId: command.user_id,
      userName: command.user_name ?? '',
      channelId: command.channel_id,
      triggerId: command.trigger_id,
      responseUrl: command.response_url,
      client,
      logger,
      deps,
      respond,
      tell,
      tellFailure,
      reply: async (msg) => {
        await respond({ response_type: isPublic ? 'in_channel' : 'ephemeral', ...msg });
      },
      customerView: () => answerView(deps, client, ws, { inChannel: isPublic, channelId: command.channel_id }),
    };

    const started = Date.now();
    try {
      if (
        sub.admin &&
        !(await deps.admins.isAdmin(client, ws.teamId, command.user_id, {
          fresh: sub.destructive === true,
          enterpriseId: ws.enterpriseId,
        }))
      ) {
        await tell(adminsOnly(`run \`/campaign ${sub.name}\``));
        return;
      }
      if (sub.audience === 'members') {
        const refusal = await deps.members.refusal(client, ws, command.user_id);
        if (refusal) {
          logger.info({ refusal }, 'refused: not a full member of the workspace');
          await tell(sub.refusal?.(refusal) ?? customerDataRefusal(`\`/campaign ${sub.name}\``, refusal));
          return;
        }
      }
      await sub.run(ctx);
      deps.metrics.commands.inc({ subcommand: sub.name, outcome: 'ok' });
      logger.info({ ms: Date.now() - started }, 'command handled');
    } catch (err) {
      deps.metrics.commands.inc({ subcommand: sub.name, outcome: 'error' });
      logFailure(logger, err, { ms: Date.now() - started }, 'command failed');
      await tellFailure(err, sub.failures?.(ctx)).catch((e: unknown) =>
        logger.error({ err: e }, 'could not tell the user about a failure'),
      );
    } finally {
      slow.done();
    }
  }

  return dispatch;
}

/**
 * A command run in a direct message: a DM's id starts with D (https://docs.slack.dev/reference/objects/im-object),
 * Slack names it `directmessage` in a command's `channel_name`, and a group DM's name starts with `mpdm-`
 * (https://docs.slack.dev/reference/objects/mpim-object).
 */
function isDirectMessage(command: { channel_id: string; channel_name: string }): boolean {
  return (
    command.channel_id.startsWith('D') ||
    command.channel_name === 'directmessage' ||
    command.channel_name.startsWith('mpdm-')
  );
}
