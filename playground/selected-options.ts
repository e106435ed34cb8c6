/** What Slack sends of a choice in a select, checkboxes or overflow menu: the chosen options as the blocks hold them. */
import type { FakeSlack } from '../fakes/slack/index.js';
import { optionsOf } from './blockkit-html.js';
import type { ActionInput } from './page-api.js';

type Json = Record<string, unknown>;

/** `selected_option` or `selected_options` of the action, or undefined for a click (no choice). */
export function selectedOptions(slack: FakeSlack, input: ActionInput): Json | undefined {
  if (input.selected === undefined) return undefined;
  const chosen = input.selected[0];
  const blocks =
    input.container === 'view'
      ? slack.view(input.viewId)?.view.blocks
      : input.ephemeral
        ? slack.ephemerals(input.channel).find((e) => e.ts === input.ts)?.blocks
        : slack.message(input.channel, input.ts)?.blocks;
  const element = findElement(blocks, input.actionId);
  const options = element ? optionsOf(element) : [];
  const pick = (v: string) => options.find((o) => o.value === v);
  if (element?.type === 'multi_static_select' || element?.type === 'checkboxes') {
    return { selected_options: input.selected.flatMap((v) => pick(v) ?? []) };
  }
  return { selected_option: chosen === undefined ? null : (pick(chosen) ?? null) };
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function findElement(blocks: unknown, actionId: string): Json | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks) {
    if (!isObj(block)) continue;
    const candidates: unknown[] = [
      ...(Array.isArray(block.elements) ? (block.elements as unknown[]) : []),
      block.accessory,
      block.element,
    ];
    for (const el of candidates) if (isObj(el) && el.action_id === actionId) return el;
  }
  return undefined;
}
