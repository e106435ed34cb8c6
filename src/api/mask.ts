import { maskSecretShapes } from '../util/secret-shapes.js';

/** Keys shorter than this are masked entirely: showing 4 characters of a short key gives too much of it away. */
const MIN_LENGTH_TO_SHOW_TAIL = 12;
const MASK = '••••';

/** The only way an API key may appear in logs or Slack: `••••` + its last 4 characters. */
export function maskKey(key: string): string {
  if (key.length < MIN_LENGTH_TO_SHOW_TAIL) return MASK;
  return MASK + key.slice(-4);
}

/**
 * Replaces every occurrence of `apiKey` in `text` with its masked form, and masks Slack and hook tokens (the
 * platform may echo back what it was sent, e.g. a hookUrl, and its messages are shown in Slack).
 */
export function redactKey(text: string, apiKey: string): string {
  return maskSecretShapes(apiKey === '' ? text : text.split(apiKey).join(maskKey(apiKey)));
}

/** What stands for hidden digits and letters in masked customer details. */
const DOTS = '•••';

/**
 * Customer details are matched in their NFKC form: fullwidth digits (`４１５`), the fullwidth `＋` and `＠` and
 * other compatibility forms become the plain characters a reader sees in them, so they cannot slip past.
 */
function normalised(text: string): string {
  return text.normalize('NFKC');
}

/** A decimal digit of any script (after NFKC, the fullwidth ones are ASCII). */
const DIGIT = /\p{Nd}/gu;

/**
 * A customer's phone number with only its country code and last 4 digits (`+1 ••• ••• 9876`): enough for a
 * team to tell two customers apart, not enough to call them. Fewer than 7 digits: masked entirely.
 */
export function maskPhoneNumber(number: string): string {
  const text = normalised(number);
  const digits = text.match(DIGIT) ?? [];
  if (digits.length < 7) return `${DOTS} ${DOTS}`;
  const tail = digits.slice(-4).join('');
  const plus = text.trim().startsWith('+');
  // The country code is the one part a reader needs (which market) and the part least specific to a person.
  const country = plus ? `+${digits.slice(0, Math.max(1, Math.min(3, digits.length - 10))).join('')} ` : '';
  return `${country}${DOTS} ${DOTS} ${tail}`;
}

/**
 * An e-mail address as its domain alone (`•••@example.com`): the whole local part is hidden — it is the part
 * that names the person, and a part of it (a first letter, what precedes a non-ASCII letter) is a part too
 * many. Not an address: masked entirely.
 */
export function maskEmail(email: string): string {
  const text = normalised(email).trim();
  const at = text.lastIndexOf('@');
  const domain = text.slice(at + 1);
  if (at < 1 || domain === '') return DOTS;
  return `${DOTS}@${domain}`;
}

/**
 * E-mail addresses: a local part of letters, marks and digits of any script and the symbols addresses allow
 * (invisible format characters too, so a zero-width space cannot split one), `@`, a dotted domain. A match
 * starts only where a run of such characters starts (the lookbehind), so a long run without `@` — a customer
 * can send one — is read once, not once per character.
 */
const EMAIL_IN_TEXT =
  /(?<![\p{L}\p{M}\p{N}\p{Cf}._%+!#$&'*=?^~-])[\p{L}\p{M}\p{N}\p{Cf}._%+!#$&'*=?^~-]+@[\p{L}\p{M}\p{N}-]+(?:\.[\p{L}\p{M}\p{N}-]+)+/gu;
/**
 * Phone numbers: 7 or more digits of any script, each from the next at most 4 separators apart — spaces of
 * any kind, dashes of any kind, dots, slashes, brackets, invisible format characters — so `4 1 5 - 5 5 5 …` is
 * one number. Dates and long ids written that way are masked too: a wrong mask costs less than a leaked number.
 */
const PHONE_IN_TEXT = /\+?\p{Nd}(?:[\s\p{Pd}\p{Cf}.()[\]/]{0,4}\p{Nd}){6,}/gu;

/** Free text (a summary, a transcript, a customer's message) with every phone number and e-mail in it masked. */
export function maskContactDetails(text: string): string {
  return normalised(text).replace(EMAIL_IN_TEXT, maskEmail).replace(PHONE_IN_TEXT, maskPhoneNumber);
}
