/**
 * Fair use of the platform: one bot in OAuth mode (Redis) with two workspaces installed through Slack's OAuth
 * flow. Workspace A runs on the operator's key (CAMPAIGN_API_KEY_TEAM), workspace B on a key of its own.
 *
 * Figures: B's `/campaign stats` — command sent → its answer (the stats) at the response_url — one at a time,
 * first with A idle (the baseline), then while A has many slow voice clones going (the platform takes
 * `cloneDelayMs` to answer each), then while A floods the platform with commands it answers A slowly. Each
 * `during` is measured in the same run as the baseline, on the same bot.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SlackSigner } from '../test/fakes/slack-signer.js';
import { SIGNING_SECRET, type BotProcess } from './lib/bot-process.js';
import { until } from './lib/net.js';
import { ADMIN_ID, MEMBER_ID, type Stack } from './lib/stack.js';
import { percentile } from './lib/stats.js';
import { installWorkspace } from './lib/workspace.js';

const TEAM_A = 'T0FAIRA001';
const TEAM_B = 'T0FAIRB001';
const KEY_B = 'ck_live_bench_fairness_workspace_B_bbbb';
const CLONE_CALLBACK = 'clone_voice_modal';
const STATS_ANSWER = 'Campaign dashboard';

export interface Latencies {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export interface FairnessFigures {
  baseline: Latencies;
  clones: {
    submitted: number;
    cloneDelayMs: number;
    /** What A's admins were told: queued behind others, or refused (the workspace's waiting list full). */
    queued: number;
    refused: number;
    /** Clone uploads in flight at the platform (received, not answered yet) once B and A were measured. */
    atPlatform: number;
    /** B's stats meanwhile, and A's own. */
    b: Latencies;
    a: Latencies;
  };
  flood: {
    commands: number;
    platformDelayMs: number;
    /** A's requests the platform had received (none answered yet) while B was measured; NaN if that took 10 s. */
    atPlatform: number;
    b: Latencies;
  };
}

export async function runFairness(
  stack: Stack,
  opts: { clones: number; cloneDelayMs: number; samples: number; flood: number; floodDelayMs: number },
): Promise<FairnessFigures> {
  const bot = await stack.startBot({ oauth: true, env: { CAMPAIGN_API_KEY_TEAM: TEAM_A } });
  try {
    for (const team of [TEAM_A, TEAM_B]) await installWorkspace(bot.url, stack.slack, team);
    stack.platform.addApiKey(KEY_B);
    await stack.store.workspaces.setApiKey(TEAM_B, KEY_B, { verifiedBy: ADMIN_ID });
    const a = signerFor(bot, stack, TEAM_A);
    const b = signerFor(bot, stack, TEAM_B);
    stack.platform.reset();
    stack.slack.reset();

    // Warm-up: the first command of a process loads code paths the rest reuse.
    await statsLatencies(stack, b, 'warm', 3);
    const baseline = await statsLatencies(stack, b, 'base', opts.samples);

    // A's admin starts its clones, each through the command and its form; the platform takes its time on each.
    stack.platform.inject({ method: 'POST', path: '/voices', delayMs: opts.cloneDelayMs });
    const voicesAtPlatform = () => stack.platform.requests.filter((r) => r.path === '/voices').length;
    const cloneIds: string[] = [];
    for (let i = 0; i < opts.clones; i++) cloneIds.push(await startClone(stack, a, i));
    const told = (id: string, what: string) => stack.slack.responses.some((r) => r.id === id && text(r).includes(what));
    const queued = () => cloneIds.filter((id) => told(id, 'queued behind')).length;
    const refused = () => cloneIds.filter((id) => told(id, 'not started')).length;
    // Each clone is at the platform, queued behind the workspace's others, or refused (its waiting list full).
    await until(() => voicesAtPlatform() + queued() + refused() >= opts.clones, 'every clone placed', 60_000);
    const duringB = await statsLatencies(stack, b, 'clones-b', opts.samples);
    const duringA = await statsLatencies(stack, a, 'clones-a', opts.samples);
    // Uploads the platform has received and not answered yet (each takes `cloneDelayMs`): in flight at once.
    const clonesAtPlatform = voicesAtPlatform() - cloneIds.filter((id) => told(id, 'cloned the voice')).length;

    // A floods: many commands at once while the platform answers A's key slowly (past the bot's 10 s timeout).
    stack.platform.clearFaults();
    stack.platform.inject({ apiKey: stack.platform.apiKey, delayMs: opts.floodDelayMs });
    const before = stack.platform.requests.length;
    const ofA = () =>
      stack.platform.requests.slice(before).filter((r) => r.headers['api-key'] === stack.platform.apiKey);
    const floodStarted = Date.now();
    await Promise.all(
      Array.from({ length: opts.flood }, (_, i) =>
        a.command({ text: 'stats', userId: `U0FLOOD${String(i).padStart(4, '0')}`, responseUrlId: `flood-${i}` }),
      ),
    );
    await until(() => ofA().length > 0, 'the flood at the platform', 30_000);
    const floodB = await statsLatencies(stack, b, 'flood-b', opts.samples);
    // Within the bot's 10 s request timeout nothing of A's was answered or retried: all of it is in flight.
    const floodAtPlatform = Date.now() - floodStarted < 10_000 ? ofA().length : Number.NaN;

    return {
      baseline,
      clones: {
        submitted: opts.clones,
        cloneDelayMs: opts.cloneDelayMs,
        queued: queued(),
        refused: refused(),
        atPlatform: clonesAtPlatform,
        b: duringB,
        a: duringA,
      },
      flood: { commands: opts.flood, platformDelayMs: opts.floodDelayMs, atPlatform: floodAtPlatform, b: floodB },
    };
  } finally {
    stack.platform.reset();
    await bot.stop('SIGKILL');
  }
}

function signerFor(bot: BotProcess, stack: Stack, teamId: string): SlackSigner {
  return new SlackSigner({ signingSecret: SIGNING_SECRET, url: `${bot.url}/slack/events`, teamId, fake: stack.slack });
}

function text(r: { body: Record<string, unknown> }): string {
  return JSON.stringify(r.body);
}

/** `n` signed `/campaign stats`, one after another: command sent → the stats at its response_url (ms). */
async function statsLatencies(stack: Stack, signer: SlackSigner, tag: string, n: number): Promise<Latencies> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = `${tag}-${i}`;
    const sent = Date.now();
    await signer.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: id });
    const answer = await until(
      () => stack.slack.responses.find((r) => r.id === id && text(r).includes(STATS_ANSWER)),
      `the stats answer ${id}`,
      120_000,
      2,
    );
    ms.push(answer.at - sent);
    await sleep(20);
  }
  return { n, p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms) };
}

let cloneSeq = 0;
/** `/campaign clone-voice` by A's admin, then its form with one audio sample; returns the response_url id. */
async function startClone(stack: Stack, signer: SlackSigner, i: number): Promise<string> {
  const id = `clone-${++cloneSeq}`;
  const before = stack.slack.views(CLONE_CALLBACK).length;
  await signer.command({ text: 'clone-voice', userId: ADMIN_ID, responseUrlId: id });
  const view = await until(() => stack.slack.views(CLONE_CALLBACK)[before], 'the clone-voice form', 10_000, 5);
  const file = stack.slack.addFile({
    name: `sample-${i}.mp3`,
    mimetype: 'audio/mpeg',
    data: randomBytes(256 * 1024),
    teamId: signer.teamId,
  });
  const input = (value: string) => ({ value: { type: 'plain_text_input', value } });
  await signer.viewSubmission({
    callbackId: CLONE_CALLBACK,
    viewId: view.view.id,
    userId: ADMIN_ID,
    values: {
      name: input(`Voice ${i}`),
      language: input('en-US'),
      gender: input('female'),
      provider: input('elevenlabs'),
      files: { value: { type: 'file_input', files: [file] } },
    },
  });
  return id;
}
