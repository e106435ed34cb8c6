/**
 * Block elements: which ones each block accepts and the limits of each element's fields.
 */
import {
  arrayErrors,
  booleanErrors,
  confirmErrors,
  err,
  idErrors,
  integerErrors,
  isObj,
  optionErrors,
  optionGroupErrors,
  optionListErrors,
  optionalPlain,
  stringErrors,
  styleErrors,
  textObjectErrors,
  type OptionRules,
} from './block-kit-objects.js';

const SELECT_SOURCES = ['static', 'external', 'users', 'conversations', 'channels'] as const;
const SELECTS = SELECT_SOURCES.flatMap((s) => [`${s}_select`, `multi_${s}_select`]);

/** Elements an `actions` block may hold. */
export const ACTIONS_ELEMENTS = new Set([
  'button',
  'checkboxes',
  'datepicker',
  'datetimepicker',
  'overflow',
  'radio_buttons',
  'timepicker',
  'workflow_button',
  'rich_text_input',
  ...SELECTS,
]);

/** Elements a `section` block's accessory may be. */
export const ACCESSORY_ELEMENTS = new Set([
  'button',
  'checkboxes',
  'datepicker',
  'image',
  'overflow',
  'radio_buttons',
  'timepicker',
  'workflow_button',
  ...SELECTS,
]);

/** Elements an `input` block may wrap. */
export const INPUT_ELEMENTS = new Set([
  'checkboxes',
  'datepicker',
  'datetimepicker',
  'email_text_input',
  'file_input',
  'number_input',
  'plain_text_input',
  'radio_buttons',
  'rich_text_input',
  'timepicker',
  'url_text_input',
  ...SELECTS,
]);

/** Elements a `context_actions` block may hold. */
export const CONTEXT_ACTIONS_ELEMENTS = new Set(['feedback_buttons', 'icon_button']);

/** An image element (section accessory, context element): image_url ≤ 3000 or slack_file, alt_text ≤ 2000. */
export function imageElementErrors(el: Record<string, unknown>, ptr: string): string[] {
  const errors: string[] = [];
  if (el.image_url === undefined && el.slack_file === undefined) {
    errors.push(err('must provide either image_url or slack_file', ptr));
  }
  errors.push(...stringErrors(el.image_url, `${ptr}/image_url`, 3000, { min: 1 }));
  errors.push(...stringErrors(el.alt_text, `${ptr}/alt_text`, 2000, { required: true, min: 1 }));
  return errors;
}

/** One element of a block, refused when its type is not one `allowed` there. */
export function elementErrors(el: unknown, ptr: string, allowed: ReadonlySet<string>): string[] {
  if (!isObj(el)) return [err('must provide an object', ptr)];
  if (typeof el.type !== 'string' || !allowed.has(el.type))
    return [err(`unsupported type: ${String(el.type)}`, `${ptr}/type`)];
  const errors: string[] = [];
  if (el.action_id !== undefined) errors.push(...idErrors(el.action_id, `${ptr}/action_id`));
  // Every element that has them shares these limits.
  errors.push(...optionalPlain(el.placeholder, `${ptr}/placeholder`, 150));
  if (el.confirm !== undefined) errors.push(...confirmErrors(el.confirm, `${ptr}/confirm`));
  errors.push(...booleanErrors(el.focus_on_load, `${ptr}/focus_on_load`));
  errors.push(...typeErrors(el.type, el, ptr));
  return errors;
}

function typeErrors(type: string, el: Record<string, unknown>, ptr: string): string[] {
  if (type.endsWith('_select')) return selectErrors(type, el, ptr);
  switch (type) {
    case 'button':
    case 'workflow_button':
      return [
        ...textObjectErrors(el.text, `${ptr}/text`, 75, true),
        ...stringErrors(el.value, `${ptr}/value`, 2000),
        ...stringErrors(el.url, `${ptr}/url`, 3000),
        ...styleErrors(el.style, `${ptr}/style`),
        ...stringErrors(el.accessibility_label, `${ptr}/accessibility_label`, 75),
      ];
    case 'overflow':
      return optionListErrors(el.options, `${ptr}/options`, 1, 5, { url: true });
    case 'checkboxes':
      return [
        ...optionListErrors(el.options, `${ptr}/options`, 1, 10, { mrkdwn: true }),
        ...initialOptions(el.initial_options, `${ptr}/initial_options`, 10, { mrkdwn: true }),
      ];
    case 'radio_buttons':
      return [
        ...optionListErrors(el.options, `${ptr}/options`, 1, 10, { mrkdwn: true }),
        ...(el.initial_option === undefined
          ? []
          : optionErrors(el.initial_option, `${ptr}/initial_option`, { mrkdwn: true })),
      ];
    case 'plain_text_input':
      return [
        ...integerErrors(el.min_length, `${ptr}/min_length`, 0, 3000),
        ...integerErrors(el.max_length, `${ptr}/max_length`, 1, 3000),
        ...stringErrors(el.initial_value, `${ptr}/initial_value`, 3000),
        ...booleanErrors(el.multiline, `${ptr}/multiline`),
      ];
    case 'file_input':
      return [
        ...integerErrors(el.max_files, `${ptr}/max_files`, 1, 10),
        ...arrayErrors(el.filetypes, `${ptr}/filetypes`, Number.MAX_SAFE_INTEGER),
      ];
    case 'number_input':
      // Slack documents is_decimal_allowed as required.
      return booleanErrors(el.is_decimal_allowed, `${ptr}/is_decimal_allowed`, true);
    case 'image':
      return imageElementErrors(el, ptr);
    default:
      return [];
  }
}

function initialOptions(v: unknown, ptr: string, max: number, rules: OptionRules = {}): string[] {
  if (v === undefined) return [];
  const errors = arrayErrors(v, ptr, max);
  if (Array.isArray(v)) v.forEach((o, i) => errors.push(...optionErrors(o, `${ptr}/${i}`, rules)));
  return errors;
}

/** Select menus: static ones carry options (≤ 100) or option_groups (≤ 100), never both. */
function selectErrors(type: string, el: Record<string, unknown>, ptr: string): string[] {
  const errors: string[] = [];
  const multi = type.startsWith('multi_');
  if (type.endsWith('static_select')) {
    if ((el.options === undefined) === (el.option_groups === undefined)) {
      errors.push(err('must provide exactly one of options or option_groups', ptr));
    }
    if (el.options !== undefined) errors.push(...optionListErrors(el.options, `${ptr}/options`, 1, 100));
    if (el.option_groups !== undefined) {
      errors.push(...arrayErrors(el.option_groups, `${ptr}/option_groups`, 100, { min: 1 }));
      if (Array.isArray(el.option_groups)) {
        el.option_groups.forEach((g, i) => errors.push(...optionGroupErrors(g, `${ptr}/option_groups/${i}`)));
      }
    }
  }
  if (type.endsWith('external_select')) {
    // How many typed characters before Slack asks the app for options (default 3); 0 asks on opening.
    const least = el.min_query_length;
    if (least !== undefined && (typeof least !== 'number' || !Number.isInteger(least) || least < 0)) {
      errors.push(err('must be an integer of at least 0', `${ptr}/min_query_length`));
    }
  }
  if (multi) {
    errors.push(...initialOptions(el.initial_options, `${ptr}/initial_options`, 100));
    const most = el.max_selected_items;
    if (most !== undefined && (typeof most !== 'number' || !Number.isInteger(most) || most < 1)) {
      errors.push(err('must be an integer of at least 1', `${ptr}/max_selected_items`));
    }
  } else if (el.initial_option !== undefined) {
    errors.push(...optionErrors(el.initial_option, `${ptr}/initial_option`));
  }
  return errors;
}
