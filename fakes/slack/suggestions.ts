/**
 * Options requests (`block_suggestion`) for menus with an external data source: what Slack makes of the app's
 * answer. Slack shows the options only when the answer came within 3 s as HTTP 200 with a JSON body of
 * `options` or `option_groups` within Block Kit's limits; otherwise the menu shows nothing
 * (https://docs.slack.dev/reference/interaction-payloads/block_suggestion-payload).
 */
import { optionsAnswerErrors } from './block-kit.js';
import type { SuggestionAnswer } from './types.js';
import { isObj } from './util.js';

export function judgeSuggestion(
  request: { viewId?: string; blockId: string; actionId: string; value: string },
  answer: { status: number; json?: unknown; ms: number; timedOut: boolean },
): SuggestionAnswer {
  const errors: string[] = [];
  if (answer.timedOut) errors.push(`no answer within 3 s (${Math.round(answer.ms)} ms)`);
  if (answer.status !== 200) errors.push(`HTTP ${answer.status}`);
  else if (answer.json === undefined) errors.push('the answer is not JSON');
  else errors.push(...optionsAnswerErrors(answer.json));
  const body = isObj(answer.json) ? answer.json : {};
  return {
    ...(request.viewId !== undefined ? { viewId: request.viewId } : {}),
    blockId: request.blockId,
    actionId: request.actionId,
    value: request.value,
    at: Date.now(),
    status: answer.status,
    ms: answer.ms,
    timedOut: answer.timedOut,
    ...(Array.isArray(body.options) ? { options: body.options as unknown[] } : {}),
    ...(Array.isArray(body.option_groups) ? { optionGroups: body.option_groups as unknown[] } : {}),
    errors,
  };
}
