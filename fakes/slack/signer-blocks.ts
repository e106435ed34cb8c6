/**
 * What the signer reads of Block Kit to build the payloads Slack would send: where a button or menu sits in a
 * message, and which inputs a view's submission can carry.
 */
import { isObj } from './util.js';
import type { SlackView } from './types.js';

type Json = Record<string, unknown>;

/** Find the block and element holding `actionId` (sections' accessories, actions/input elements). */
export function findAction(blocks: unknown, actionId: string): { blockId?: string; element: Json } | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks) {
    if (!isObj(block)) continue;
    const blockId = typeof block.block_id === 'string' ? block.block_id : undefined;
    const candidates: unknown[] = [];
    if (Array.isArray(block.elements)) candidates.push(...(block.elements as unknown[]));
    if (block.accessory !== undefined) candidates.push(block.accessory);
    if (block.element !== undefined) candidates.push(block.element);
    for (const el of candidates) {
      if (isObj(el) && el.action_id === actionId) return { blockId, element: el };
    }
  }
  return undefined;
}

/** The (block_id, action_id) pairs of a view's input blocks — what a submission can carry. */
export function inputSlots(view: SlackView): Set<string> {
  const slots = new Set<string>();
  for (const block of view.blocks) {
    if (!isObj(block) || !isObj(block.element)) continue;
    if (typeof block.block_id === 'string' && typeof block.element.action_id === 'string') {
      slots.add(`${block.block_id}/${block.element.action_id}`);
    }
  }
  return slots;
}
