/**
 * Block Kit validation: the subset of Slack's rules that apps commonly trip over, answered as Slack's
 * `response_metadata.messages` (50 blocks per message, 100 per view, 3000-char section text, 24-char modal
 * titles, empty text objects, duplicate block_ids…). Self-contained, so a stricter version can replace it whole.
 */

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const BLOCK_TYPES = new Set([
  'section', 'divider', 'image', 'actions', 'context', 'input', 'header', 'rich_text', 'file', 'video',
  'markdown', 'call', 'table', 'context_actions',
]);

function textObjectErrors(t: unknown, ptr: string, max: number, plainOnly = false): string[] {
  if (!isObj(t)) return [`[ERROR] must provide an object [json-pointer:${ptr}]`];
  const type = t.type;
  if (type !== 'plain_text' && type !== 'mrkdwn') return [`[ERROR] must be one of plain_text, mrkdwn [json-pointer:${ptr}/type]`];
  if (plainOnly && type !== 'plain_text') return [`[ERROR] must be plain_text [json-pointer:${ptr}/type]`];
  if (typeof t.text !== 'string') return [`[ERROR] must provide a string [json-pointer:${ptr}/text]`];
  if (t.text.length === 0) return [`[ERROR] must be more than 0 characters [json-pointer:${ptr}/text]`];
  if (t.text.length > max) return [`[ERROR] must be less than ${max + 1} characters [json-pointer:${ptr}/text]`];
  return [];
}

function elementErrors(el: unknown, ptr: string): string[] {
  if (!isObj(el)) return [`[ERROR] must provide an object [json-pointer:${ptr}]`];
  const errors: string[] = [];
  if (typeof el.action_id === 'string' && el.action_id.length > 255) {
    errors.push(`[ERROR] must be less than 256 characters [json-pointer:${ptr}/action_id]`);
  }
  if (el.type === 'button') {
    errors.push(...textObjectErrors(el.text, `${ptr}/text`, 75, true));
    if (typeof el.value === 'string' && el.value.length > 2000) {
      errors.push(`[ERROR] must be less than 2001 characters [json-pointer:${ptr}/value]`);
    }
    if (typeof el.url === 'string' && el.url.length > 3000) {
      errors.push(`[ERROR] must be less than 3001 characters [json-pointer:${ptr}/url]`);
    }
  }
  if ((el.type === 'static_select' || el.type === 'multi_static_select') && Array.isArray(el.options)) {
    if (el.options.length > 100) errors.push(`[ERROR] must be less than 101 items [json-pointer:${ptr}/options]`);
  }
  return errors;
}

/** Slack-style `response_metadata.messages` for invalid blocks; empty when valid. */
export function blockKitErrors(blocks: unknown, maxBlocks: number, root = '/blocks'): string[] {
  if (!Array.isArray(blocks)) return [`[ERROR] must provide an array [json-pointer:${root}]`];
  const errors: string[] = [];
  if (blocks.length > maxBlocks) errors.push(`[ERROR] no more than ${maxBlocks} items allowed [json-pointer:${root}]`);
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => {
    const ptr = `${root}/${i}`;
    if (!isObj(block)) {
      errors.push(`[ERROR] must provide an object [json-pointer:${ptr}]`);
      return;
    }
    if (typeof block.type !== 'string' || !BLOCK_TYPES.has(block.type)) {
      errors.push(`[ERROR] unsupported type: ${String(block.type)} [json-pointer:${ptr}/type]`);
      return;
    }
    if (typeof block.block_id === 'string') {
      if (block.block_id.length > 255) errors.push(`[ERROR] must be less than 256 characters [json-pointer:${ptr}/block_id]`);
      if (blockIds.has(block.block_id)) errors.push(`[ERROR] duplicate block_id: ${block.block_id} [json-pointer:${ptr}/block_id]`);
      blockIds.add(block.block_id);
    }
    switch (block.type) {
      case 'section': {
        if (block.text === undefined && block.fields === undefined) {
          errors.push(`[ERROR] must provide either text or fields [json-pointer:${ptr}]`);
        }
        if (block.text !== undefined) errors.push(...textObjectErrors(block.text, `${ptr}/text`, 3000));
        if (block.fields !== undefined) {
          if (!Array.isArray(block.fields)) errors.push(`[ERROR] must provide an array [json-pointer:${ptr}/fields]`);
          else {
            if (block.fields.length > 10) errors.push(`[ERROR] no more than 10 items allowed [json-pointer:${ptr}/fields]`);
            block.fields.forEach((f, j) => errors.push(...textObjectErrors(f, `${ptr}/fields/${j}`, 2000)));
          }
        }
        if (block.accessory !== undefined) errors.push(...elementErrors(block.accessory, `${ptr}/accessory`));
        break;
      }
      case 'header':
        errors.push(...textObjectErrors(block.text, `${ptr}/text`, 150, true));
        break;
      case 'actions': {
        if (!Array.isArray(block.elements) || block.elements.length === 0) {
          errors.push(`[ERROR] must provide at least 1 item [json-pointer:${ptr}/elements]`);
          break;
        }
        if (block.elements.length > 25) errors.push(`[ERROR] no more than 25 items allowed [json-pointer:${ptr}/elements]`);
        const actionIds = new Set<string>();
        block.elements.forEach((el, j) => {
          errors.push(...elementErrors(el, `${ptr}/elements/${j}`));
          if (isObj(el) && typeof el.action_id === 'string') {
            if (actionIds.has(el.action_id)) {
              errors.push(`[ERROR] duplicate action_id: ${el.action_id} [json-pointer:${ptr}/elements/${j}/action_id]`);
            }
            actionIds.add(el.action_id);
          }
        });
        break;
      }
      case 'context': {
        if (!Array.isArray(block.elements) || block.elements.length === 0) {
          errors.push(`[ERROR] must provide at least 1 item [json-pointer:${ptr}/elements]`);
        } else if (block.elements.length > 10) {
          errors.push(`[ERROR] no more than 10 items allowed [json-pointer:${ptr}/elements]`);
        }
        break;
      }
      case 'input': {
        errors.push(...textObjectErrors(block.label, `${ptr}/label`, 2000, true));
        if (!isObj(block.element)) errors.push(`[ERROR] must provide an object [json-pointer:${ptr}/element]`);
        else errors.push(...elementErrors(block.element, `${ptr}/element`));
        break;
      }
      case 'image': {
        if (typeof block.alt_text !== 'string' || block.alt_text.length === 0) {
          errors.push(`[ERROR] must provide a string [json-pointer:${ptr}/alt_text]`);
        }
        break;
      }
      default:
        break;
    }
  });
  return errors;
}

export function viewErrors(view: Record<string, unknown>, kind: 'modal' | 'home'): string[] {
  const errors: string[] = [];
  if (view.type !== kind) {
    errors.push(`[ERROR] must be ${kind} [json-pointer:/view/type]`);
    return errors;
  }
  if (kind === 'modal') {
    errors.push(...textObjectErrors(view.title, '/view/title', 24, true));
    if (view.submit !== undefined) errors.push(...textObjectErrors(view.submit, '/view/submit', 24, true));
    if (view.close !== undefined) errors.push(...textObjectErrors(view.close, '/view/close', 24, true));
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObj(b) && b.type === 'input');
    if (hasInput && view.submit === undefined) {
      errors.push(`[ERROR] submit is required when an 'input' block is within the blocks array [json-pointer:/view/submit]`);
    }
  }
  errors.push(...blockKitErrors(view.blocks, 100, '/view/blocks'));
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > 3000) {
    errors.push(`[ERROR] must be less than 3001 characters [json-pointer:/view/private_metadata]`);
  }
  if (typeof view.callback_id === 'string' && view.callback_id.length > 255) {
    errors.push(`[ERROR] must be less than 256 characters [json-pointer:/view/callback_id]`);
  }
  if (typeof view.external_id === 'string' && view.external_id.length > 255) {
    errors.push(`[ERROR] must be less than 256 characters [json-pointer:/view/external_id]`);
  }
  return errors;
}
