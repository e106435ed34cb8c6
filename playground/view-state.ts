/**
 * What the page's modal form holds → Slack's `view.state.values`, built from the view's own input blocks
 * (so a select's chosen option carries its full text object, a file input its file objects, exactly as Slack
 * sends them), plus Slack's client-side rule that a required input must be filled before submitting.
 */
import { blockIdOf, optionsOf } from './blockkit-html.js';

/** From the page: per block id, per action id, the field's raw value (text, chosen option values, or file ids). */
export type RawValues = Record<string, Record<string, string | string[] | null | undefined>>;

export type StateValues = Record<string, Record<string, Record<string, unknown>>>;

/** Per block id, per action id: the options the app served for a menu with an external data source. */
export type ServedOptions = Record<string, Record<string, Array<Json & { value: string }>>>;

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Slack's own wording when a required field is left empty. */
export const REQUIRED_MESSAGE = 'Please complete this required field.';

interface InputSlot {
  blockId: string;
  actionId: string;
  element: Json;
  optional: boolean;
}

/** The input blocks of a view, each with the block id the page rendered it under. */
function inputSlots(blocks: unknown): InputSlot[] {
  if (!Array.isArray(blocks)) return [];
  const slots: InputSlot[] = [];
  blocks.forEach((block, index) => {
    if (!isObj(block) || block.type !== 'input' || !isObj(block.element)) return;
    slots.push({
      blockId: blockIdOf(block, index),
      actionId: typeof block.element.action_id === 'string' ? block.element.action_id : '',
      element: block.element,
      optional: block.optional === true,
    });
  });
  return slots;
}

function asList(raw: string | string[] | null | undefined): string[] {
  if (raw === null || raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).filter((v) => v !== '');
}

function asText(raw: string | string[] | null | undefined): string | null {
  const first = Array.isArray(raw) ? raw[0] : raw;
  return first === undefined || first === null || first === '' ? null : first;
}

/** One element's state entry, as Slack puts it in `state.values[block][action]`. */
function entry(
  element: Json,
  raw: string | string[] | null | undefined,
  fileById: (id: string) => unknown,
  served: Array<Json & { value: string }> = [],
): { value: Record<string, unknown>; empty: boolean } {
  const type = typeof element.type === 'string' ? element.type : '';
  // A menu with an external data source has no options of its own: the app served them as the person typed.
  const options = type === 'external_select' ? served : optionsOf(element);
  const option = (value: string) => options.find((o) => o.value === value);
  switch (type) {
    case 'static_select':
    case 'radio_buttons':
    case 'external_select': {
      const chosen = asText(raw);
      const selected = chosen === null ? null : (option(chosen) ?? null);
      return { value: { type, selected_option: selected }, empty: selected === null };
    }
    case 'multi_static_select':
    case 'checkboxes': {
      const selected = asList(raw).flatMap((v) => option(v) ?? []);
      return { value: { type, selected_options: selected }, empty: selected.length === 0 };
    }
    case 'datepicker': {
      const date = asText(raw);
      return { value: { type, selected_date: date }, empty: date === null };
    }
    case 'timepicker': {
      const time = asText(raw);
      return { value: { type, selected_time: time }, empty: time === null };
    }
    case 'file_input': {
      const files = asList(raw).flatMap((id) => fileById(id) ?? []);
      return { value: { type, files }, empty: files.length === 0 };
    }
    default: {
      // plain_text_input and friends. Slack sends null for an untouched empty field.
      const text = asText(raw);
      return { value: { type, value: text }, empty: text === null || text.trim() === '' };
    }
  }
}

/**
 * `state.values` for every input of the view (Slack includes untouched ones too), and the required inputs
 * left empty (block id → message) — a non-empty `missing` means Slack would not send the submission at all.
 */
export function buildStateValues(
  blocks: unknown,
  raw: RawValues,
  fileById: (id: string) => unknown,
  served: ServedOptions = {},
): { values: StateValues; missing: Record<string, string> } {
  const values: StateValues = {};
  const missing: Record<string, string> = {};
  for (const slot of inputSlots(blocks)) {
    const { value, empty } = entry(
      slot.element,
      raw[slot.blockId]?.[slot.actionId],
      fileById,
      served[slot.blockId]?.[slot.actionId],
    );
    (values[slot.blockId] ??= {})[slot.actionId] = value;
    if (empty && !slot.optional) missing[slot.blockId] = REQUIRED_MESSAGE;
  }
  return { values, missing };
}
