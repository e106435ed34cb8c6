/**
 * Redis Cluster's key → hash slot mapping, computed here because `CLUSTER KEYSLOT` is refused by a
 * non-cluster Redis: CRC16 (XMODEM) of the key — or of its hash tag, the part between the first `{` and the
 * next `}` when that part is not empty — modulo 16384.
 */

/** CRC16-CCITT, XMODEM variant (polynomial 0x1021, initial value 0), as Redis Cluster uses it. */
export function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The part of the key that is hashed: its hash tag when it has a non-empty one, else the whole key. */
export function hashedPart(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

export function hashSlot(key: string): number {
  return crc16(Buffer.from(hashedPart(key), 'utf8')) % 16384;
}
