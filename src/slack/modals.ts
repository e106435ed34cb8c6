/**
 * Modal views: typed constructors and typed reads of submitted values.
 *
 * Convention: every input's `action_id` is `value`, so a field is addressed by its block id alone.
 */
import type {
  Checkboxes,
  ExternalSelect,
  FileInput,
  InputBlock,
  KnownBlock,
  ModalView,
  PlainTextInput,
  PlainTextOption,
} from '@slack/types';
import type { ViewOutput } from '@slack/bolt';
import { LIMITS, plain } from './blocks.js';

const INPUT_ACTION = 'value';

export function modal(opts: {
  callbackId: string;
  title: string;
  blocks: KnownBlock[];
  submit?: string;
  close?: string;
  privateMetadata?: string;
}): ModalView {
  return {
    type: 'modal',
    callback_id: opts.callbackId,
    title: plain(opts.title, 24),
    ...(opts.submit ? { submit: plain(opts.submit, 24) } : {}),
    close: plain(opts.close ?? (opts.submit ? 'Cancel' : 'Close'), 24),
    blocks: opts.blocks.slice(0, LIMITS.blocksPerModal),
    ...(opts.privateMetadata ? { private_metadata: opts.privateMetadata } : {}),
  };
}

export function textInput(
  blockId: string,
  label: string,
  opts: {
    placeholder?: string;
    hint?: string;
    optional?: boolean;
    multiline?: boolean;
    initial?: string;
    maxLength?: number;
    /** The cursor starts in it (one field to paste into; at most one per view). */
    focus?: boolean;
  } = {},
): InputBlock {
  const element: PlainTextInput = {
    type: 'plain_text_input',
    action_id: INPUT_ACTION,
    ...(opts.placeholder ? { placeholder: plain(opts.placeholder, 150) } : {}),
    ...(opts.multiline ? { multiline: true } : {}),
    ...(opts.initial ? { initial_value: opts.initial } : {}),
    ...(opts.maxLength ? { max_length: opts.maxLength } : {}),
    ...(opts.focus ? { focus_on_load: true } : {}),
  };
  return inputBlock(blockId, label, element, opts);
}

/**
 * An upload field (modals only). `filetypes` only filters the picker — Slack's docs say to check the
 * files yourself — and `maxFiles` is at most 10 (Slack's limit).
 */
export function fileInput(
  blockId: string,
  label: string,
  opts: { filetypes?: readonly string[]; maxFiles?: number; hint?: string; optional?: boolean } = {},
): InputBlock {
  const element: FileInput = {
    type: 'file_input',
    action_id: INPUT_ACTION,
    ...(opts.filetypes ? { filetypes: [...opts.filetypes] } : {}),
    ...(opts.maxFiles !== undefined ? { max_files: Math.min(Math.max(opts.maxFiles, 1), 10) } : {}),
  };
  return inputBlock(blockId, label, element, opts);
}

/**
 * A group of checkboxes. A required checkbox group would force a tick, so on/off settings pass
 * `optional: true`.
 */
export function checkboxes(
  blockId: string,
  label: string,
  options: ReadonlyArray<{ value: string; text: string; description?: string }>,
  opts: { hint?: string; optional?: boolean; initial?: readonly string[] } = {},
): InputBlock {
  const all: PlainTextOption[] = options.slice(0, 10).map((o) => ({
    text: plain(o.text, 75),
    value: o.value,
    ...(o.description ? { description: plain(o.description, 75) } : {}),
  }));
  const initial = all.filter((o) => o.value !== undefined && opts.initial?.includes(o.value));
  const element: Checkboxes = {
    type: 'checkboxes',
    action_id: INPUT_ACTION,
    options: all,
    ...(initial.length > 0 ? { initial_options: initial } : {}),
  };
  return inputBlock(blockId, label, element, opts);
}

/**
 * A menu whose options the app serves as the user types (Block Kit `external_select`): Slack sends a
 * `block_suggestion` with the typed text to the app's options load URL and shows the options the app answers
 * (at most 100). `min_query_length: 0` asks as soon as the menu opens, so it lists before anything is typed
 * (https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element#external_select,
 * https://docs.slack.dev/reference/interaction-payloads/block_suggestion-payload). Serve it with Bolt's
 * `app.options({ block_id })`.
 */
export function externalSelect(
  blockId: string,
  label: string,
  opts: { placeholder?: string; hint?: string; optional?: boolean } = {},
): InputBlock {
  const element: ExternalSelect = {
    type: 'external_select',
    action_id: INPUT_ACTION,
    min_query_length: 0,
    ...(opts.placeholder ? { placeholder: plain(opts.placeholder, 150) } : {}),
  };
  return inputBlock(blockId, label, element, opts);
}

/** The value of the option chosen in a menu, `undefined` when none is. */
export function readSelected(view: ViewOutput, blockId: string): string | undefined {
  const v = view.state.values[blockId]?.[INPUT_ACTION]?.selected_option?.value?.trim();
  return v ? v : undefined;
}

/** The files of an upload field as Slack sent them (unchecked: narrow them with a schema). */
export function readFiles(view: ViewOutput, blockId: string): unknown[] {
  return view.state.values[blockId]?.[INPUT_ACTION]?.files ?? [];
}

/** The values of the ticked checkboxes. */
export function readChecked(view: ViewOutput, blockId: string): string[] {
  return (view.state.values[blockId]?.[INPUT_ACTION]?.selected_options ?? []).map((o) => o.value);
}

/** A text field's trimmed value, `undefined` when left empty. */
export function readText(view: ViewOutput, blockId: string): string | undefined {
  const v = view.state.values[blockId]?.[INPUT_ACTION]?.value?.trim();
  return v ? v : undefined;
}

/** The input block around any element: label, hint and whether it may be left empty. */
function inputBlock(
  blockId: string,
  label: string,
  element: InputBlock['element'],
  opts: { hint?: string; optional?: boolean },
): InputBlock {
  return {
    type: 'input',
    block_id: blockId,
    label: plain(label, 2000),
    element,
    ...(opts.hint ? { hint: plain(opts.hint, 2000) } : {}),
    ...(opts.optional ? { optional: true } : {}),
  };
}
