/**
 * The `/campaign` command surface: the list of subcommands (help shows them in this order) and the
 * one `register` that wires the dispatcher and every subcommand's modals and actions.
 */
import type { App } from '@slack/bolt';
import type { Deps } from '../app/deps.js';
import { agentLink } from './agent-link.js';
import { handoffs } from './handoffs.js';
import { shift } from './shift.js';
import { replies } from './replies.js';
import { handoffSla } from './handoff-sla.js';
import { bookings } from './bookings.js';
import { cloneVoice } from './clone-voice.js';
import { connect } from './connect.js';
import { createDispatcher } from './dispatch.js';
import { deleteAgent } from './delete-agent.js';
import { keys } from './keys.js';
import { linkNumber } from './link-number.js';
import { profile } from './profile.js';
import { verify } from './verify.js';
import { quota } from './quota.js';
import { scheduled } from './scheduled.js';
import { stats } from './stats.js';
import { subscribe } from './subscribe.js';
import { unsubscribe } from './unsubscribe.js';
import { rotateHook } from './rotate-hook.js';
import { subscriptions } from './subscriptions.js';
import { sample } from './sample.js';
import { template } from './template.js';
import { digest } from './digest.js';
import { quotaAlert } from './quota-alert.js';
import { failed } from './failed.js';
import { alert } from './alert.js';
import { parseCommandText } from './arguments.js';
import type { Subcommand } from './types.js';

/** In the order of docs/PRODUCT.md › Command grammar: read commands, then admin tools, then event routing. */
const SUBCOMMANDS: readonly Subcommand[] = [
  stats,
  bookings,
  scheduled,
  quota,
  template,
  subscriptions,
  sample,
  handoffs,
  shift,
  connect,
  keys,
  profile,
  linkNumber,
  deleteAgent,
  verify,
  cloneVoice,
  subscribe,
  unsubscribe,
  rotateHook,
  agentLink,
  digest,
  quotaAlert,
  handoffSla,
  alert,
  failed,
  replies,
];

export const COMMAND = '/campaign';

/** Who may run `/campaign <text>`, as the dispatcher and the subcommand gate it (help for no known name). */
export function whoMayRun(text: string): 'anyone' | 'members' | 'admins' {
  const parsed = parseCommandText(text);
  const sub = SUBCOMMANDS.find((c) => c.name === parsed.name);
  if (sub?.admin || sub?.adminWhen?.(sub.freeText ? parsed.words : parsed.args)) return 'admins';
  return sub?.audience === 'members' ? 'members' : 'anyone';
}

export function register(app: App, deps: Deps): void {
  app.command(COMMAND, createDispatcher(SUBCOMMANDS, deps));
  for (const sub of SUBCOMMANDS) sub.register?.(app, deps);
}
