/**
 * What a webhook costs a replica by how many workspaces it has met: one replica, installed workspaces that
 * have sent nothing yet. First `known` webhooks from the same 100 workspaces (each met already after its
 * first); then one webhook from each of the other workspaces, in slices of `slice`, each slice's CPU read once
 * the queue has drained — so the last slice costs what a webhook from a workspace not met before costs once
 * the replica has met all the others. The events are `call_started`, routed nowhere in this fleet: the cost
 * is intake and the worker's reading of the event, no Slack post.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startReplicas } from './fleet-idle.js';
import { callCompleted, deliveryBody, postJson } from './lib/events.js';
import type { FleetWorkspace } from './lib/fleet-seed.js';
import { cpuWindow, load } from './lib/probes.js';
import type { Stack } from './lib/stack.js';

export interface ContactFigures {
  /** Bot CPU per webhook from the same 100 workspaces, ms. */
  knownMs: number;
  /** Per slice of first webhooks: workspaces met before it and after it, bot CPU per webhook (ms). */
  slices: Array<{ from: number; to: number; ms: number }>;
  webhookErrors: number;
  load: string;
}

const CONCURRENCY = 16;
const KNOWN = 100;

export async function runFirstContact(
  stack: Stack,
  fleet: readonly FleetWorkspace[],
  opts: { known: number; slice: number },
): Promise<ContactFigures> {
  const [bot] = await startReplicas(stack, 1);
  let errors = 0;
  /** Sends one webhook per index in `[from, to)`, to workspace `pick(i)`; resolves with the bot's CPU per webhook once drained. */
  const round = async (from: number, to: number, pick: (i: number) => number) => {
    const cpu = cpuWindow([bot!.pid]);
    let next = from;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < to; i = next++) {
          const event = callCompleted(`flk-${i}`, { triggerName: 'call_started' });
          const res = await postJson(`${bot!.url}${fleet[pick(i)]!.hook}`, deliveryBody(event));
          await res.arrayBuffer();
          if (res.status !== 200) errors++;
        }
      }),
    );
    while ((await stack.store.queue.depth()).total > 0) await sleep(100);
    return cpu.stop()[0]!.cpuMs / (to - from);
  };
  try {
    // Warm-up first (the first requests of a process load code paths), then the figure.
    await round(0, opts.known, (i) => i % KNOWN);
    const knownMs = await round(0, opts.known, (i) => i % KNOWN);
    const slices: ContactFigures['slices'] = [];
    for (let from = KNOWN; from < fleet.length; from += opts.slice) {
      const to = Math.min(fleet.length, from + opts.slice);
      slices.push({ from, to, ms: await round(from, to, (i) => i) });
    }
    return { knownMs, slices, webhookErrors: errors, load: load() };
  } finally {
    await bot!.stop();
  }
}
