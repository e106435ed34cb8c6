/**
 * Assignment: in a channel whose `/campaign handoff-sla` says `assign:round-robin|least-busy`, each new
 * conversation is handed to an agent on shift (`/campaign shift on`) as its card is posted. The assigned agent
 * owns it exactly as if they had pressed **Claim** (the same owner key, so Unclaim and Take over work
 * unchanged), and the card's first post mentions them — beside the channel's user group when it is paged as chats
 * arrive. With nobody on shift the card says so and the channel's own paging applies.
 *
 * - round-robin: the agents on shift in a fixed order (user id), the workspace's next turn taken with one
 *   INCR, so replicas assigning at once never take the same turn and N×k conversations give each k;
 * - least-busy: the agent owning the fewest open (unresolved) conversations now; ties go round the turn.
 *   Two conversations arriving at the same instant may both see the same counts — a tie is then broken
 *   by the turn, an imbalance of one at most per race.
 * An agent going off shift hands their open conversations back (`shift-handback.ts`).
 */
import type { StepLog } from '../delivery/steps.js';
import type { AssignMode, Assignment, Store } from '../store/index.js';

/** What the assignment step remembers when nobody was on shift (user ids never look like this). */
const NOBODY = '-';

/** The agent on shift a new conversation goes to, or undefined when nobody is on shift. */
export async function pickAgent(
  store: Pick<Store, 'shifts' | 'conversations'>,
  teamId: string,
  mode: AssignMode,
): Promise<string | undefined> {
  const roster = (await store.shifts.onShift(teamId)).map((a) => a.user);
  if (roster.length === 0) return undefined;
  let candidates = roster;
  if (mode === 'least-busy') {
    const load = new Map(roster.map((u) => [u, 0]));
    for (const t of await store.conversations.openThreads(teamId)) {
      const n = t.owner === undefined ? undefined : load.get(t.owner);
      if (n !== undefined) load.set(t.owner!, n + 1);
    }
    const fewest = Math.min(...load.values());
    candidates = roster.filter((u) => load.get(u) === fewest);
  }
  if (candidates.length === 1) return candidates[0];
  const turn = await store.shifts.nextTurn(teamId);
  return candidates[(turn - 1) % candidates.length];
}

/**
 * How a new conversation's card in `channel` is assigned, decided once per queue entry (a retried entry posts
 * the card it already decided on, to the same agent). Undefined when the channel does not assign.
 */
export async function assignOnArrival(
  store: Pick<Store, 'shifts' | 'conversations'>,
  steps: StepLog,
  at: { teamId: string; entryId: string; channel: string },
  mode: AssignMode | undefined,
): Promise<Assignment | undefined> {
  if (!mode) return undefined;
  const picked = await steps.once(
    { ...at, step: 'assign' },
    async () => (await pickAgent(store, at.teamId, mode)) ?? NOBODY,
  );
  return picked.result === NOBODY ? { nobodyOnShift: true } : { to: picked.result };
}
