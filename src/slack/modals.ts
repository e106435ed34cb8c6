/**
 * Modal views: typed constructors and typed reads of submitted values.
 *
 * Convention: every input's `action_id` is `value`, so a field is addressed by its block id alone.
 */
import type { InputBlock, KnownBlock, ModalView, PlainTextInput } from '@slack/types';
import type { ViewOutput } from '@slack/bolt';
import type { z } from 'zod';
import { LIMITS, plain } from './blocks.js';
import { parseJsonValue } from './json-value.js';

export const INPUT_ACTION = 'value';

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
  opts: { placeholder?: string; hint?: string; optional?: boolean; multiline?: boolean; initial?: string; maxLength?: number } = {},
): InputBlock {
  const element: PlainTextInput = {
    type: 'plain_text_input',
    action_id: INPUT_ACTION,
    ...(opts.placeholder ? { placeholder: plain(opts.placeholder, 150) } : {}),
    ...(opts.multiline ? { multiline: true } : {}),
    ...(opts.initial ? { initial_value: opts.initial } : {}),
    ...(opts.maxLength ? { max_length: opts.maxLength } : {}),
  };
  return {
    type: 'input',
    block_id: blockId,
    label: plain(label, 2000),
    element,
    ...(opts.hint ? { hint: plain(opts.hint, 2000) } : {}),
    ...(opts.optional ? { optional: true } : {}),
  };
}

/** A text field's trimmed value, `undefined` when left empty. */
export function readText(view: ViewOutput, blockId: string): string | undefined {
  const v = view.state.values[blockId]?.[INPUT_ACTION]?.value?.trim();
  return v ? v : undefined;
}

/** Parses `private_metadata` with a schema; `undefined` when absent or not ours. */
export function readMetadata<T>(view: ViewOutput, schema: z.ZodType<T>): T | undefined {
  return parseJsonValue(view.private_metadata, schema);
}
