/** The Slack stand-in: `startFakeSlack` and its public types (see server.ts for what it copies from Slack). */
export * from './types.js';
export { startFakeSlack } from './server.js';
export { manifestFunctions } from './manifest.js';
export { manifestMetadataSubscriptions } from './metadata-events.js';
