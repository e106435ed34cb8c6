/**
 * Reports a channel gets on a schedule: digests (`/campaign digest`) and quota alerts (`/campaign
 * quota-alert`). `register` hands their timer kinds to the store-kept timers (with the daily snapshots of
 * the dashboard that digests compare with) and how their reports are posted to the outbox's bulk lane, where a
 * firing leaves what it made; the subcommands live in src/commands and use what is exported here.
 */
import type { Deps } from '../app/deps.js';
import { fireDigest, registerDigestPosts, DIGEST_TIMER } from './digest.js';
import { fireQuotaAlert, registerQuotaAlertPosts, QUOTA_TIMER } from './quota-alerts.js';
import { fireSnapshot, SNAPSHOT_TIMER } from './snapshots.js';

export function register(deps: Deps): void {
  deps.timers.on(DIGEST_TIMER, (timer, now) => fireDigest(deps, timer, now));
  deps.timers.on(QUOTA_TIMER, (timer, now) => fireQuotaAlert(deps, timer, now));
  registerDigestPosts(deps);
  registerQuotaAlertPosts(deps);
  deps.timers.on(SNAPSHOT_TIMER, (timer, now) => fireSnapshot(deps, timer, now));
}

export {
  DIGEST_TIMER,
  describeSchedule,
  leaveDigest,
  scheduleDigest,
  slackTime,
  stopDigest,
  timerId,
} from './digest.js';
export { QUOTA_TIMER, checkQuotaAlerts, setQuotaAlerts, stopQuotaAlerts } from './quota-alerts.js';
export { isTimeZone, nextSlot, parseTimeOfDay } from './clock.js';
export { postReport } from './post.js';
