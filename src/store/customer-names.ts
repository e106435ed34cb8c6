/**
 * What stands for a customer's number or email in a key name: an HMAC-SHA256 of it, so a scan of the key
 * names (a copy of the database, a `MONITOR`, a slow-log) shows no customer. The HMAC key is random, made
 * once per store and kept in it sealed with `SECRETS_KEY` (so it survives restarts and key rotation:
 * `npm run rekey` re-seals it), and read once per process. In memory mode it is sealed with the process's
 * own key, like every secret there.
 */
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import type { SecretBox } from './secrets.js';

/** The associated data the HMAC key is sealed with. */
export const CUSTOMER_NAME_KEY_CONTEXT = 'customer-name-key';

export class CustomerNames {
  private key: Promise<KeyObject> | undefined;

  constructor(
    private readonly kv: KeyValueStore,
    private readonly keys: Keys,
    private readonly secrets: SecretBox,
  ) {}

  /** The part of a key name that stands for `customer` (base64url, 43 characters). */
  async of(customer: string): Promise<string> {
    return createHmac('sha256', await this.hmacKey())
      .update(customer)
      .digest('base64url');
  }

  private hmacKey(): Promise<KeyObject> {
    this.key ??= this.load().catch((err: unknown) => {
      this.key = undefined; // the store was unavailable: tried again next time
      throw err;
    });
    return this.key;
  }

  /** The stored key, or a new one when there is none (the first writer wins among replicas). */
  private async load(): Promise<KeyObject> {
    const at = this.keys.customerNameKey();
    const fresh = this.secrets.seal(randomBytes(32).toString('base64url'), CUSTOMER_NAME_KEY_CONTEXT);
    await this.kv.set(at, fresh, { onlyIfAbsent: true });
    const sealed = await this.kv.get(at);
    if (sealed === null) throw new Error('the customer key-name key vanished as it was written');
    return createSecretKey(Buffer.from(this.secrets.open(sealed, CUSTOMER_NAME_KEY_CONTEXT), 'base64url'));
  }
}
