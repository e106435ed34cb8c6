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
 * A customer's phone number with only its country code and last 4 digits (`+1 ••• ••• 9876`): enough for a
 * team to tell two customers apart, not enough to call them. Fewer than 7 digits: masked entirely.
 */
export function maskPhoneNumber(number: string): string {
  const digits = number.replace(/\D/g, '');
  if (digits.length < 7) return `${DOTS} ${DOTS}`;
  const tail = digits.slice(-4);
  const plus = number.trim().startsWith('+');
  // The country code is the one part a reader needs (which market) and the part least specific to a person.
  const country = plus ? `+${digits.slice(0, Math.max(1, Math.min(3, digits.length - 10)))} ` : '';
  return `${country}${DOTS} ${DOTS} ${tail}`;
}

/** An e-mail address as its first letter and domain (`j•••@example.com`); not an address: masked entirely. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return DOTS;
  return `${email[0]}${DOTS}@${email.slice(at + 1)}`;
}

/** E-mail addresses, and runs of 7+ digits with the separators people write in phone numbers. */
const EMAIL_IN_TEXT = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const PHONE_IN_TEXT = /\+?\d(?:[\s().-]{0,2}\d){6,}/g;

/** Free text (a summary, a transcript, a customer's message) with every phone number and e-mail in it masked. */
export function maskContactDetails(text: string): string {
  return text.replace(EMAIL_IN_TEXT, maskEmail).replace(PHONE_IN_TEXT, maskPhoneNumber);
}
