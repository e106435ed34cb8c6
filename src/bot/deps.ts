/**
 * What listeners receive from the composition root. One object, built once in `compose.ts`.
 */
import type { Config } from '../config.js';
import type { Logger, Redactor } from '../logger.js';
import type { Store } from '../store/index.js';
import type { PlatformAccess } from './platform-access.js';
import type { AdminGate } from './admin-gate.js';
import type { Metrics } from './metrics.js';
import type { Lifecycle } from './lifecycle.js';

export interface Deps {
  config: Config;
  logger: Logger;
  redactor: Redactor;
  store: Store;
  platform: PlatformAccess;
  admins: AdminGate;
  metrics: Metrics;
  lifecycle: Lifecycle;
  /** Per-file cap (bytes) on audio samples downloaded from Slack for voice cloning; clone-voice's default when absent. */
  voiceSampleMaxBytes?: number;
}
