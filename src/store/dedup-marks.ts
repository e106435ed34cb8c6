/**
 * The in-process queue's dedup marks: (team, dedup key) → until when a second copy is a duplicate. A busy
 * process holds two days of webhooks' marks; kept as strings in a Map they cost ~200 bytes and a heap object
 * each, which the GC traces on every full collection (RSS grew ~60 MB per 85k webhooks). Here a slot is 20 bytes
 * of typed arrays (a 96-bit fingerprint of team and key, and the expiry) and no heap object at all;
 * at the table's load (25–75 %), a mark costs 27–80 bytes.
 *
 * Open addressing with linear probing. An expired mark's slot is reused by the next mark that passes it; the
 * table is rebuilt (expired marks dropped, capacity fitted to what is left) once three quarters of its slots are
 * taken — a pause of a few ms per hundred thousand marks, each time the live marks double. Two different keys
 * share a fingerprint with odds of about n²/2⁹⁷: for a million marks, 1 in 10¹⁷.
 */
const MIN_CAPACITY = 1024;
/** Words per fingerprint (3 × 32 bits). */
const FP = 3;

/** The fingerprint of (team, key), in `out` (no allocation: one per webhook). */
function fingerprint(teamId: string, key: string, out: Uint32Array): void {
  murmur3x86x128(`${teamId}\u0000${key}`, out);
}

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

/** One lane's step of a block: its word `k` mixed in, then the lane mixed with the next one. */
function lane(h: number, k: number, ca: number, cb: number, rk: number, rh: number, next: number, add: number): number {
  h ^= Math.imul(rotl(Math.imul(k, ca), rk), cb);
  return (Math.imul(rotl(h, rh) + next, 5) + add) | 0;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * MurmurHash3 x86_128 (its block and finalisation steps) over a string's UTF-16 code units, two to a 32-bit
 * word; the last, partial block zero-padded. Not byte-compatible with the reference (which reads bytes), and
 * not for adversaries: a sender who could aim collisions here holds the workspace's hook token already. In
 * JS because a native hash call costs ~1.5 µs per webhook, most of it the call itself.
 */
function murmur3x86x128(text: string, out: Uint32Array): void {
  let h1 = 0;
  let h2 = 0;
  let h3 = 0;
  let h4 = 0;
  const word = (i: number) =>
    (i < text.length ? text.charCodeAt(i) : 0) | ((i + 1 < text.length ? text.charCodeAt(i + 1) : 0) << 16);
  for (let i = 0; i < text.length; i += 8) {
    h1 = lane(h1, word(i), C1, C2, 15, 19, h2, 0x561ccd1b);
    h2 = lane(h2, word(i + 2), C2, C3, 16, 17, h3, 0x0bcaa747);
    h3 = lane(h3, word(i + 4), C3, C4, 17, 15, h4, 0x96cd1c35);
    h4 = lane(h4, word(i + 6), C4, C1, 18, 13, h1, 0x32ac3b17);
  }
  const length = text.length * 2;
  h1 ^= length;
  h2 ^= length;
  h3 ^= length;
  h4 ^= length;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  out[0] = h1;
  out[1] = h2 + h1;
  out[2] = h3 + h1;
}

export class DedupMarks {
  private capacity = MIN_CAPACITY;
  private fingerprints = new Uint32Array(MIN_CAPACITY * FP);
  /** Epoch ms until which the mark holds; 0 is an empty slot. */
  private expiries = new Float64Array(MIN_CAPACITY);
  /** Slots not empty (live or expired). */
  private taken = 0;
  private readonly fp = new Uint32Array(FP);

  /** Whether a live mark holds (team, key). */
  holds(teamId: string, key: string, now: number): boolean {
    fingerprint(teamId, key, this.fp);
    const a = this.fp[0]!;
    const b = this.fp[1]!;
    const c = this.fp[2]!;
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
    fingerprint(teamId, key, this.fp);
    const a = this.fp[0]!;
    const b = this.fp[1]!;
    const c = this.fp[2]!;
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

  /** Live marks, counted by walking the table (for rebuilds and tests). */
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
      if (!(expiry > now)) continue;
      const at = old * FP;
      let slot = fingerprints[at]! & mask;
      while (this.expiries[slot] !== 0) slot = (slot + 1) & mask;
      this.write(slot, fingerprints[at]!, fingerprints[at + 1]!, fingerprints[at + 2]!, expiry);
    }
  }
}
