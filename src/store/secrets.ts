import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Thrown when a sealed value cannot be opened. Never carries the value or the key. */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

/**
 * Decodes `SECRETS_KEY` (standard or url-safe base64 of exactly 32 bytes). The error message never contains
 * the value, so config parsing can print it as is.
 */
export function decodeSecretsKey(base64: string): Buffer {
  const trimmed = base64.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new SecretBoxError('SECRETS_KEY must be base64 (32 random bytes, e.g. `openssl rand -base64 32`)');
  }
  // Node's base64 decoder accepts both the standard and the url-safe alphabet.
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) {
    throw new SecretBoxError(`SECRETS_KEY must decode to ${KEY_BYTES} bytes, got ${key.length}`);
  }
  return key;
}

/**
 * AES-256-GCM for secrets at rest, bound by associated data to where they belong (a value copied to another
 * workspace does not open). A key ring: the first key seals, every key opens (rotation, then `reseal`).
 * Sealed format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export class SecretBox {
  /** The sealing key first. */
  readonly #keys: readonly KeyObject[];

  constructor(keys: Buffer | readonly Buffer[]) {
    const ring = Buffer.isBuffer(keys) ? [keys] : keys;
    if (ring.length === 0) throw new SecretBoxError('secrets key ring is empty');
    for (const key of ring) {
      if (key.length !== KEY_BYTES)
        throw new SecretBoxError(`secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
    }
    // A KeyObject keeps the raw bytes out of util.inspect / accidental logging of this instance.
    this.#keys = ring.map((key) => createSecretKey(Buffer.from(key)));
  }

  static fromBase64(base64: string): SecretBox {
    return new SecretBox(decodeSecretsKey(base64));
  }

  /**
   * A box with a random key that lives only as long as this process — for the in-memory mode, whose stored
   * secrets die with the process anyway.
   */
  static ephemeral(): SecretBox {
    return new SecretBox(randomBytes(KEY_BYTES));
  }

  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys[0]!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  /** Throws `SecretBoxError` if the value is malformed, was tampered with, or belongs to other associated data. */
  open(sealed: string, associatedData: string): string {
    return this.#open(sealed, associatedData).plaintext;
  }

  /**
   * The value sealed again with the first key, or null when it already is (nothing to rewrite). Throws like
   * `open` when no key of the ring opens it.
   */
  reseal(sealed: string, associatedData: string): string | null {
    const { plaintext, keyIndex } = this.#open(sealed, associatedData);
    return keyIndex === 0 ? null : this.seal(plaintext, associatedData);
  }

  #open(sealed: string, associatedData: string): { plaintext: string; keyIndex: number } {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION || !parts.slice(1).every((p) => BASE64URL.test(p))) {
      throw new SecretBoxError(`sealed secret is malformed (expected ${VERSION}.<iv>.<tag>.<ciphertext>)`);
    }
    const [, ivText = '', tagText = '', ciphertextText = ''] = parts;
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new SecretBoxError('sealed secret is malformed (bad IV or tag length)');
    }
    const ciphertext = Buffer.from(ciphertextText, 'base64url');
    for (const [keyIndex, key] of this.#keys.entries()) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        decipher.setAuthTag(tag);
        const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
        return { plaintext: plaintext.toString('utf8'), keyIndex };
      } catch {
        // GCM authentication fails for every key but the one that sealed it: try the next.
      }
    }
    throw new SecretBoxError(
      'sealed secret failed authentication: it was tampered with, sealed with another key, or belongs to another workspace',
    );
  }
}
