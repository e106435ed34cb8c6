// The package ships no types: the one function the store uses (it is the one ioredis routes commands with).
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot of a key (its hash tag's, when it has one), as `CLUSTER KEYSLOT` answers. */
  export default function calculateSlot(key: string | Buffer): number;
}
