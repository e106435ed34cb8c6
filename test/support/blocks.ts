/**
 * Finds Block Kit blocks and their interactive elements the way Slack addresses them — by `block_id` and
 * `action_id` — so a test checks that a button or block is there, not that some JSON mentions a word.
 */

interface TextObject {
  type: 'plain_text' | 'mrkdwn';
  text: string;
}

export interface BlockElement {
  type: string;
  action_id: string;
  text?: TextObject;
  value?: string;
  url?: string;
  style?: string;
  confirm?: unknown;
}

export interface Block {
  type: string;
  block_id?: string;
  hint?: TextObject;
  label?: TextObject;
  [field: string]: unknown;
}

function blocksOf(blocks: unknown): Block[] {
  return Array.isArray(blocks) ? (blocks as Block[]) : [];
}

/** The elements of a block that carry an action_id: an actions block's, a section's accessory, an input's. */
function actionsOf(block: Block): BlockElement[] {
  const candidates = [...(Array.isArray(block.elements) ? block.elements : []), block.accessory, block.element];
  return candidates.filter(
    (e): e is BlockElement =>
      typeof e === 'object' && e !== null && typeof (e as { action_id?: unknown }).action_id === 'string',
  );
}

export function findBlock(blocks: unknown, blockId: string): Block | undefined {
  return blocksOf(blocks).find((b) => b.block_id === blockId);
}

export function findAction(blocks: unknown, actionId: string): BlockElement | undefined {
  return blocksOf(blocks)
    .flatMap(actionsOf)
    .find((e) => e.action_id === actionId);
}

/** Every text a reader sees in `blocks` (or a block, view or payload), in order, one per line. */
export function textOf(node: unknown): string {
  const out: string[] = [];
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) {
      n.forEach(walk);
      return;
    }
    if (typeof n !== 'object' || n === null) return;
    const o = n as Record<string, unknown>;
    if ((o.type === 'mrkdwn' || o.type === 'plain_text') && typeof o.text === 'string') {
      out.push(o.text);
      return;
    }
    for (const value of Object.values(o)) walk(value);
  };
  walk(node);
  return out.join('\n');
}
