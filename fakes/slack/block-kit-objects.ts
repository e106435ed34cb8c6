/**
 * Block Kit composition objects (text, option, option group, confirmation dialog) and the small checks every
 * part of the validator shares. Messages copy Slack's `response_metadata.messages` style:
 * `[ERROR] must be less than 76 characters [json-pointer:/blocks/0/elements/1/text/text]`.
 */

import { controlSequenceErrors } from './mrkdwn.js';

export type Json = Record<string, unknown>;

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function err(message: string, ptr: string): string {
  return `[ERROR] ${message} [json-pointer:${ptr}]`;
}

/** A string no longer than `max` (UTF-16 units, as Slack counts); `undefined` passes unless `required`. */
export function stringErrors(
  v: unknown,
  ptr: string,
  max: number,
  opts: { required?: boolean; min?: number } = {},
): string[] {
  if (v === undefined) return opts.required ? [err('must provide a string', ptr)] : [];
  if (typeof v !== 'string') return [err('must provide a string', ptr)];
  const min = opts.min ?? 0;
  if (v.length < min) return [err(`must be more than ${min - 1} characters`, ptr)];
  if (v.length > max) return [err(`must be less than ${max + 1} characters`, ptr)];
  return [];
}

/** An array of `min`..`max` items; `undefined` passes unless `required`. Returns the array when it is one. */
export function arrayErrors(
  v: unknown,
  ptr: string,
  max: number,
  opts: { required?: boolean; min?: number } = {},
): string[] {
  if (v === undefined) return opts.required ? [err('must provide an array', ptr)] : [];
  if (!Array.isArray(v)) return [err('must provide an array', ptr)];
  const min = opts.min ?? 0;
  if (v.length < min) return [err(`must provide at least ${min} item${min === 1 ? '' : 's'}`, ptr)];
  if (v.length > max) return [err(`no more than ${max} items allowed`, ptr)];
  return [];
}

/** An integer in `min`..`max`; `undefined` passes unless `required`. */
export function integerErrors(v: unknown, ptr: string, min: number, max: number, required = false): string[] {
  if (v === undefined) return required ? [err('must provide an integer', ptr)] : [];
  if (typeof v !== 'number' || !Number.isInteger(v)) return [err('must provide an integer', ptr)];
  if (v < min || v > max) return [err(`must be between ${min} and ${max}`, ptr)];
  return [];
}

export function booleanErrors(v: unknown, ptr: string, required = false): string[] {
  if (v === undefined) return required ? [err('must provide a boolean', ptr)] : [];
  return typeof v === 'boolean' ? [] : [err('must provide a boolean', ptr)];
}

export function styleErrors(v: unknown, ptr: string): string[] {
  return v === undefined || v === 'primary' || v === 'danger' ? [] : [err('must be one of primary, danger', ptr)];
}

/** action_id and block_id: at most 255 characters; Slack refuses an empty one. */
export function idErrors(v: unknown, ptr: string): string[] {
  return stringErrors(v, ptr, 255, { min: 1 });
}

/**
 * A text object: plain_text or mrkdwn, 1..`max` characters (an empty text is refused).
 * Default `max` is the text object's own 3000.
 */
export function textObjectErrors(t: unknown, ptr: string, max = 3000, plainOnly = false): string[] {
  if (!isObj(t)) return [err('must provide an object', ptr)];
  const type = t.type;
  if (type !== 'plain_text' && type !== 'mrkdwn') return [err('must be one of plain_text, mrkdwn', `${ptr}/type`)];
  if (plainOnly && type !== 'plain_text') return [err('must be plain_text', `${ptr}/type`)];
  const errors = stringErrors(t.text, `${ptr}/text`, max, { required: true, min: 1 });
  if (type === 'plain_text') errors.push(...booleanErrors(t.emoji, `${ptr}/emoji`));
  else {
    errors.push(...booleanErrors(t.verbatim, `${ptr}/verbatim`));
    if (typeof t.text === 'string') errors.push(...controlSequenceErrors(t.text).map((m) => err(m, `${ptr}/text`)));
  }
  return errors;
}

/** An optional plain_text field (placeholder, hint, title…): checked only when present. */
export function optionalPlain(t: unknown, ptr: string, max: number): string[] {
  return t === undefined ? [] : textObjectErrors(t, ptr, max, true);
}

export interface OptionRules {
  /** checkboxes and radio_buttons take mrkdwn option text; menus take plain_text only. */
  mrkdwn?: boolean;
  /** Only overflow menu options may link somewhere. */
  url?: boolean;
}

/** An option: text ≤ 75, value ≤ 150, description ≤ 75, url ≤ 3000 (overflow only). */
export function optionErrors(o: unknown, ptr: string, rules: OptionRules = {}): string[] {
  if (!isObj(o)) return [err('must provide an object', ptr)];
  const errors = textObjectErrors(o.text, `${ptr}/text`, 75, !rules.mrkdwn);
  errors.push(...stringErrors(o.value, `${ptr}/value`, 150, { required: true, min: 1 }));
  if (o.description !== undefined)
    errors.push(...textObjectErrors(o.description, `${ptr}/description`, 75, !rules.mrkdwn));
  if (o.url !== undefined) {
    errors.push(
      ...(rules.url
        ? stringErrors(o.url, `${ptr}/url`, 3000)
        : [err('url is only allowed in overflow menus', `${ptr}/url`)]),
    );
  }
  return errors;
}

/** A list of options with its item limits, each option checked. */
export function optionListErrors(v: unknown, ptr: string, min: number, max: number, rules: OptionRules = {}): string[] {
  const errors = arrayErrors(v, ptr, max, { required: true, min });
  if (Array.isArray(v)) v.forEach((o, i) => errors.push(...optionErrors(o, `${ptr}/${i}`, rules)));
  return errors;
}

/** An option group: label plain_text ≤ 75, 1..100 options. */
export function optionGroupErrors(g: unknown, ptr: string): string[] {
  if (!isObj(g)) return [err('must provide an object', ptr)];
  return [
    ...textObjectErrors(g.label, `${ptr}/label`, 75, true),
    ...optionListErrors(g.options, `${ptr}/options`, 1, 100),
  ];
}

/** A confirmation dialog: title 100, text 300, confirm and deny 30 (plain_text buttons and title). */
export function confirmErrors(c: unknown, ptr: string): string[] {
  if (!isObj(c)) return [err('must provide an object', ptr)];
  return [
    ...textObjectErrors(c.title, `${ptr}/title`, 100, true),
    ...textObjectErrors(c.text, `${ptr}/text`, 300),
    ...textObjectErrors(c.confirm, `${ptr}/confirm`, 30, true),
    ...textObjectErrors(c.deny, `${ptr}/deny`, 30, true),
    ...styleErrors(c.style, `${ptr}/style`),
  ];
}
