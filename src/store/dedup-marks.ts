/**
 * The in-process queue's dedup marks: (team, dedup key) → until when a second copy is a duplicate. A busy
 * process holds two days of webhooks' marks; kept as strings in a Map they cost ~200 bytes and a heap object
 * each, which the GC traces on every full collection (RSS grew ~60 MB per 85k webhooks). Here a slot is 20 bytes
 * of typed arrays (a 96-bit fingerprint of team and key, from MD5, and the expiry) and no heap object at all;
 * at the table's load (25–75 %), a mark costs 27–80 bytes.
 *
 * Open addressing with linear probing. An expired mark's slot is reused by the next mark that passes it; the
 * table is rebuilt (expired marks dropped, capacity fitted to what is left) once three quarters of its slots are
 * taken — a pause of a few ms per hundred thousand marks, each time the live marks double. Two different keys
 * share a fingerprint with odds of about n²/2⁹⁷: for a million marks, 1 in 10¹⁷.
 */
import { hash } from 'node:crypto';

const MIN_CAPACITY = 1024;
/** Words per fingerprint (3 × 32 bits). */
const FP = 3;

function fingerprint(teamId: string, key: string): [number, number, number] {
  const md5 = hash('md5', `${teamId}\u0000${key}`, 'buffer');
  return [md5.readUInt32LE(0), md5.readUInt32LE(4), md5.readUInt32LE(8)];
}

export class DedupMarks {
  private capacity = MIN_CAPACITY;
  private fingerprints = new Uint32Array(MIN_CAPACITY * FP);
  /** Epoch ms until which the mark holds; 0 is an empty slot. */
  private expiries = new Float64Array(MIN_CAPACITY);
  /** Slots not empty (live or expired). */
  private taken = 0;

  /** Whether a live mark holds (team, key). */
  holds(teamId: string, key: string, now: number): boolean {
    const [a, b, c] = fingerprint(teamId, key);
    const mask = this.capacity - 1;
    for (let slot = a & mask; ; slot = (slot + 1) & mask) {
      const expiry = this.expiries[slot]!;
      if (expiry === 0) return false;
      const at = slot * FP;
      const f = this.fingerprints;
      if (f[at] === a && f[at + 1] === b && f[at + 2] === c) return expiry > now;
    }
  }

  /** Marks (team, key) until `expiresAt` unless a live mark holds it already; true when it was not marked. */
  markOnce(teamId: string, key: string, now: number, expiresAt: number): boolean {
    const [a, b, c] = fingerprint(teamId, key);
    const mask = this.capacity - 1;
    let reusable = -1;
    for (let slot = a & mask; ; slot = (slot + 1) & mask) {
      const expiry = this.expiries[slot]!;
      if (expiry === 0) {
        if (reusable < 0) {
          this.taken++;
          reusable = slot;
        }
        break;
      }
      const at = slot * FP;
      const f = this.fingerprints;
      if (f[at] === a && f[at + 1] === b && f[at + 2] === c) {
        if (expiry > now) return false;
        reusable = slot;
        break;
      }
      if (expiry <= now && reusable < 0) reusable = slot;
    }
    this.write(reusable, a, b, c, expiresAt);
    if (this.taken * 4 > this.capacity * 3) this.rebuild(now);
    return true;
  }

  /** Live marks (for tests and metrics); counts by walking the table. */
  size(now: number): number {
    let live = 0;
    for (const expiry of this.expiries) if (expiry > now) live++;
    return live;
  }

  private write(slot: number, a: number, b: number, c: number, expiresAt: number): void {
    const at = slot * FP;
    this.fingerprints[at] = a;
    this.fingerprints[at + 1] = b;
    this.fingerprints[at + 2] = c;
    this.expiries[slot] = expiresAt;
  }

  /** A table at most half full of the live marks; expired marks stay behind. */
  private rebuild(now: number): void {
    const live = this.size(now);
    let capacity = MIN_CAPACITY;
    while (capacity < live * 2) capacity *= 2;
    const fingerprints = this.fingerprints;
    const expiries = this.expiries;
    this.capacity = capacity;
    this.fingerprints = new Uint32Array(capacity * FP);
    this.expiries = new Float64Array(capacity);
    this.taken = live;
    const mask = capacity - 1;
    for (let old = 0; old < expiries.length; old++) {
      const expiry = expiries[old]!;
      if (expiry <= now) continue;
      const at = old * FP;
      let slot = fingerprints[at]! & mask;
      while (this.expiries[slot] !== 0) slot = (slot + 1) & mask;
      this.write(slot, fingerprints[at]!, fingerprints[at + 1]!, fingerprints[at + 2]!, expiry);
    }
  }
}
