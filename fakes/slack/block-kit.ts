/**
 * Slack's Block Kit validation as the stand-in applies it: what real Slack refuses with `invalid_blocks`
 * (messages) or `invalid_arguments` (views), with Slack's `response_metadata.messages` wording and JSON pointers.
 * Self-contained on purpose: the stand-in is the only caller.
 */
import {
  ACCESSORY_ELEMENTS,
  ACTIONS_ELEMENTS,
  CONTEXT_ACTIONS_ELEMENTS,
  INPUT_ELEMENTS,
  elementErrors,
  imageElementErrors,
} from './block-kit-elements.js';
import {
  arrayErrors,
  err,
  idErrors,
  isObj,
  optionGroupErrors,
  optionErrors,
  optionalPlain,
  stringErrors,
  textObjectErrors,
  type Json,
} from './block-kit-objects.js';
import { MAX_CHARTS_PER_MESSAGE, dataTableErrors, dataVisualizationErrors } from './block-kit-charts.js';

const BLOCK_TYPES = new Set([
  'section',
  'divider',
  'image',
  'actions',
  'context',
  'input',
  'header',
  'rich_text',
  'file',
  'video',
  'markdown',
  'call',
  'table',
  'context_actions',
  'data_visualization',
  'data_table',
]);

/** Slack-style `response_metadata.messages` for invalid blocks; empty when valid. */
export function blockKitErrors(blocks: unknown, maxBlocks: number, root = '/blocks'): string[] {
  if (!Array.isArray(blocks)) return [err('must provide an array', root)];
  const errors: string[] = [];
  if (blocks.length > maxBlocks) errors.push(err(`no more than ${maxBlocks} items allowed`, root));
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => {
    const ptr = `${root}/${i}`;
    if (!isObj(block)) {
      errors.push(err('must provide an object', ptr));
      return;
    }
    if (typeof block.type !== 'string' || !BLOCK_TYPES.has(block.type)) {
      errors.push(err(`unsupported type: ${String(block.type)}`, `${ptr}/type`));
      return;
    }
    if (block.block_id !== undefined) {
      errors.push(...idErrors(block.block_id, `${ptr}/block_id`));
      // Unique across the whole message or view, not just among neighbours.
      if (typeof block.block_id === 'string') {
        if (blockIds.has(block.block_id)) errors.push(err(`duplicate block_id: ${block.block_id}`, `${ptr}/block_id`));
        blockIds.add(block.block_id);
      }
    }
    errors.push(...blockErrors(block.type, block, ptr));
  });
  return errors;
}

function blockErrors(type: string, block: Json, ptr: string): string[] {
  switch (type) {
    case 'section':
      return sectionErrors(block, ptr);
    case 'header':
      return textObjectErrors(block.text, `${ptr}/text`, 150, true);
    case 'actions':
      return elementListErrors(block.elements, `${ptr}/elements`, 25, ACTIONS_ELEMENTS);
    case 'context_actions':
      return elementListErrors(block.elements, `${ptr}/elements`, 5, CONTEXT_ACTIONS_ELEMENTS);
    case 'context':
      return contextErrors(block, ptr);
    case 'input':
      return [
        ...textObjectErrors(block.label, `${ptr}/label`, 2000, true),
        ...optionalPlain(block.hint, `${ptr}/hint`, 2000),
        ...(block.element === undefined
          ? [err('must provide an object', `${ptr}/element`)]
          : elementErrors(block.element, `${ptr}/element`, INPUT_ELEMENTS)),
      ];
    case 'image':
      return [...imageElementErrors(block, ptr), ...optionalPlain(block.title, `${ptr}/title`, 2000)];
    case 'markdown':
      // Slack caps the markdown block's text at 12,000 characters.
      return stringErrors(block.text, `${ptr}/text`, 12_000, { required: true, min: 1 });
    case 'rich_text':
      return arrayErrors(block.elements, `${ptr}/elements`, Number.MAX_SAFE_INTEGER, { required: true });
    case 'data_visualization':
      return dataVisualizationErrors(block, ptr);
    case 'data_table':
      return dataTableErrors(block, ptr);
    default:
      return [];
  }
}

function sectionErrors(block: Json, ptr: string): string[] {
  const errors: string[] = [];
  if (block.text === undefined && block.fields === undefined)
    errors.push(err('must provide either text or fields', ptr));
  if (block.text !== undefined) errors.push(...textObjectErrors(block.text, `${ptr}/text`, 3000));
  if (block.fields !== undefined) {
    errors.push(...arrayErrors(block.fields, `${ptr}/fields`, 10, { min: 1 }));
    if (Array.isArray(block.fields))
      block.fields.forEach((f, j) => errors.push(...textObjectErrors(f, `${ptr}/fields/${j}`, 2000)));
  }
  if (block.accessory !== undefined)
    errors.push(...elementErrors(block.accessory, `${ptr}/accessory`, ACCESSORY_ELEMENTS));
  return errors;
}

function contextErrors(block: Json, ptr: string): string[] {
  const errors = arrayErrors(block.elements, `${ptr}/elements`, 10, { required: true, min: 1 });
  if (!Array.isArray(block.elements)) return errors;
  block.elements.forEach((el, j) => {
    const p = `${ptr}/elements/${j}`;
    if (isObj(el) && el.type === 'image') errors.push(...imageElementErrors(el, p));
    else errors.push(...textObjectErrors(el, p));
  });
  return errors;
}

/** Elements of an actions-like block: 1..`max`, allowed types, action_id unique within the block. */
function elementListErrors(elements: unknown, ptr: string, max: number, allowed: ReadonlySet<string>): string[] {
  const errors = arrayErrors(elements, ptr, max, { required: true, min: 1 });
  if (!Array.isArray(elements)) return errors;
  const actionIds = new Set<string>();
  elements.forEach((el, j) => {
    errors.push(...elementErrors(el, `${ptr}/${j}`, allowed));
    if (isObj(el) && typeof el.action_id === 'string') {
      if (actionIds.has(el.action_id))
        errors.push(err(`duplicate action_id: ${el.action_id}`, `${ptr}/${j}/action_id`));
      actionIds.add(el.action_id);
    }
  });
  return errors;
}

/**
 * A message body (chat.postMessage / postEphemeral / update, or a response_url post): ≤ 50 blocks, no
 * `input` blocks — those collect values only in modals and Home tabs — and at most two charts.
 */
export function messageErrors(payload: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const check = (blocks: unknown, root: string): void => {
    if (blocks === undefined) return;
    errors.push(...blockKitErrors(blocks, 50, root));
    if (!Array.isArray(blocks)) return;
    blocks.forEach((b, i) => {
      if (isObj(b) && b.type === 'input')
        errors.push(err('input blocks are only allowed in modals and Home tabs', `${root}/${i}/type`));
    });
    const charts = blocks.filter((b) => isObj(b) && b.type === 'data_visualization').length;
    if (charts > MAX_CHARTS_PER_MESSAGE)
      errors.push(err(`no more than ${MAX_CHARTS_PER_MESSAGE} data_visualization blocks allowed`, root));
  };
  check(payload.blocks, '/blocks');
  if (Array.isArray(payload.attachments)) {
    payload.attachments.forEach((a, i) => {
      if (isObj(a)) check(a.blocks, `/attachments/${i}/blocks`);
    });
  }
  return errors;
}

/** A modal or Home tab view: ≤ 100 blocks plus the view's own fields. */
export function viewErrors(view: Record<string, unknown>, kind: 'modal' | 'home'): string[] {
  if (view.type !== kind) return [err(`must be ${kind}`, '/view/type')];
  const errors: string[] = [];
  if (kind === 'modal') {
    errors.push(...textObjectErrors(view.title, '/view/title', 24, true));
    errors.push(...optionalPlain(view.submit, '/view/submit', 24));
    errors.push(...optionalPlain(view.close, '/view/close', 24));
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObj(b) && b.type === 'input');
    if (hasInput && view.submit === undefined) {
      errors.push(err(`submit is required when an 'input' block is within the blocks array`, '/view/submit'));
    }
  }
  errors.push(...blockKitErrors(view.blocks, 100, '/view/blocks'));
  errors.push(...stringErrors(view.private_metadata, '/view/private_metadata', 3000));
  errors.push(...stringErrors(view.callback_id, '/view/callback_id', 255));
  errors.push(...stringErrors(view.external_id, '/view/external_id', 255));
  return errors;
}

/**
 * Every image URL in blocks, with its JSON pointer: image blocks and image elements wherever they sit
 * (section accessories, context elements, …). Slack fetches each and refuses the message when one fails.
 */
export function imageUrls(blocks: unknown, root = '/blocks'): { url: string; pointer: string }[] {
  const found: { url: string; pointer: string }[] = [];
  const walk = (v: unknown, ptr: string): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${ptr}/${i}`));
      return;
    }
    if (!isObj(v)) return;
    if (v.type === 'image' && typeof v.image_url === 'string')
      found.push({ url: v.image_url, pointer: `${ptr}/image_url` });
    for (const [key, child] of Object.entries(v)) {
      if (typeof child === 'object' && child !== null) walk(child, `${ptr}/${escapePointer(key)}`);
    }
  };
  walk(blocks, root);
  return found;
}

/** RFC 6901: `~` and `/` in a key are escaped in a JSON pointer. */
function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The app's answer to a `block_suggestion`: `options` or `option_groups` (not both), at most 100 of either
 * (https://docs.slack.dev/reference/interaction-payloads/block_suggestion-payload), each option plain_text ≤ 75
 * with a value ≤ 150, each group labelled (≤ 75) with 1..100 options. An empty list is fine (Slack shows
 * "no results"). Empty when Slack would show it.
 */
export function optionsAnswerErrors(body: unknown): string[] {
  if (!isObj(body)) return [err('must provide an object', '')];
  const hasOptions = body.options !== undefined;
  const hasGroups = body.option_groups !== undefined;
  if (hasOptions === hasGroups) return [err('must provide exactly one of options or option_groups', '')];
  if (hasOptions) {
    const errors = arrayErrors(body.options, '/options', 100);
    if (Array.isArray(body.options)) body.options.forEach((o, i) => errors.push(...optionErrors(o, `/options/${i}`)));
    return errors;
  }
  const errors = arrayErrors(body.option_groups, '/option_groups', 100);
  if (Array.isArray(body.option_groups))
    body.option_groups.forEach((g, i) => errors.push(...optionGroupErrors(g, `/option_groups/${i}`)));
  return errors;
}
