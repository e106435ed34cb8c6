import { createHash } from 'node:crypto';

/**
 * A fixed-size stand-in for a text a sender controls (a dedup key, a call key): 22 base64url characters of its
 * SHA-256 (132 bits), so what is stored per event never grows with what the sender put in it (a call id can be as
 * long as the body).
 */
export function shortDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22);
}
