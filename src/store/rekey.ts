/**
 * Re-seals every stored secret with the first key of the `SECRETS_KEY` ring, so that an older key can be
 * dropped afterwards. Reads and writes through the store's own key layout; never sees or returns a value.
 *
 * Safe beside running bots: each value is replaced with compare-and-set, so a value a request changed in
 * the meantime is read again rather than overwritten (bots must already have the new ring, or they could
 * not open what this writes).
 */
import { unsegment, type Keys } from './keys.js';
import type { KeyValueStore } from './kv.js';
import { CUSTOMER_NAME_KEY_CONTEXT } from './customer-names.js';
import { installationContext } from './installations.js';
import { SecretBoxError, type SecretBox } from './secrets.js';
import { sealedWorkspaceFields } from './workspaces.js';

const KINDS = {
  apiKey: 'API keys',
  hookToken: 'hook tokens',
  installation: 'installations',
  customerNameKey: 'the customer key-name key',
} as const;
/** A value that keeps changing under us is left to the next run rather than retried forever. */
const MAX_ATTEMPTS = 5;

export interface RekeyReport {
  /** Values re-sealed with the first key, per kind (`KINDS`). */
  rewritten: Record<string, number>;
  /** Values already sealed with the first key. */
  current: number;
  /** Where a value opens with no key of the ring (key name and field, never the value): left untouched. */
  unreadable: string[];
  /** Values that changed on every attempt (a busy workspace): run again. */
  busy: string[];
}

type Outcome = 'rewritten' | 'current' | 'unreadable' | 'busy' | 'gone';

/** `store`: the store's key-value backend, key layout and secret box (a `Store` has them). */
export async function rekeyStore(store: { kv: KeyValueStore; keys: Keys; secrets: SecretBox }): Promise<RekeyReport> {
  const { kv, keys, secrets } = store;
  const report: RekeyReport = { rewritten: {}, current: 0, unreadable: [], busy: [] };
  const tally = (kind: string, where: string, outcome: Outcome) => {
    if (outcome === 'rewritten') report.rewritten[kind] = (report.rewritten[kind] ?? 0) + 1;
    else if (outcome === 'current') report.current += 1;
    else if (outcome === 'unreadable') report.unreadable.push(where);
    else if (outcome === 'busy') report.busy.push(where);
  };

  /** Reads, re-seals and writes back one value until it is current or the write lands unchanged. */
  const rekeyOne = async (
    read: () => Promise<string | null>,
    write: (expected: string, next: string) => Promise<boolean>,
    context: string,
  ): Promise<Outcome> => {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const sealed = await read();
      if (sealed === null) return 'gone';
      let next: string | null;
      try {
        next = secrets.reseal(sealed, context);
      } catch (err) {
        if (err instanceof SecretBoxError) return 'unreadable';
        throw err;
      }
      if (next === null) return 'current';
      if (await write(sealed, next)) return 'rewritten';
    }
    return 'busy';
  };

  const workspacePrefix = keys.kindPrefix('workspace');
  for (const key of await kv.keysWithPrefix(workspacePrefix)) {
    const teamId = unsegment(key.slice(workspacePrefix.length));
    for (const [field, context] of Object.entries(sealedWorkspaceFields(teamId))) {
      const outcome = await rekeyOne(
        () => kv.hashGet(key, field),
        (expected, next) => kv.hashSetIfEqual(key, field, expected, next),
        context,
      );
      tally(field in KINDS ? KINDS[field as keyof typeof KINDS] : field, `${key} ${field}`, outcome);
    }
  }
  for (const key of await kv.keysWithPrefix(keys.kindPrefix('installation'))) {
    const outcome = await rekeyOne(
      () => kv.get(key),
      (expected, next) => kv.setIfEqual(key, expected, next),
      installationContext(key),
    );
    tally(KINDS.installation, key, outcome);
  }
  const customerNameKey = keys.customerNameKey();
  const outcome = await rekeyOne(
    () => kv.get(customerNameKey),
    (expected, next) => kv.setIfEqual(customerNameKey, expected, next),
    CUSTOMER_NAME_KEY_CONTEXT,
  );
  tally(KINDS.customerNameKey, customerNameKey, outcome);
  return report;
}
