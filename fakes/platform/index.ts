/**
 * A fake of the campaign platform (docs/PLATFORM-API.md) on a real HTTP socket.
 *
 * - All 16 endpoints under `${url}` (which already ends in /v1/api), backed by `state` (see seed.ts).
 * - Checks the `api-key` header (401 envelope), validates request bodies (400 envelope naming the field) and
 *   applies the documented rules (404 unknown template/campaign/agent, handoff-only human replies, 409/422
 *   verification states, https-only webhooks, provider 'custom').
 * - Every response carries `x-request-id`; every error body is `{ error: { message, code, requestId } }`.
 * - Every request is recorded in `requests` (after its body was read, before faults/auth/routing), so tests
 *   can assert exactly what the platform received, including multipart parts.
 * - `today`: the seed's dates moved to that day (the playground's); as written, 8 March 2024, otherwise.
 * - books.ts keeps the books of simulated calls and chats (dashboard totals, quota used, bookings).
 * - `setMode()` makes the whole platform slow, down (connections refused) or failing (500s), for the playground's
 *   switch and for tests; `normal` by default.
 * - `inject()` adds faults (error status, delay, socket reset, raw body, or held until `release()`) for matching
 *   requests — by method, path and api-key (one workspace's).
 *
 * Usage:
 *   const platform = await startFakePlatform();
 *   const client = new CampaignClient(createTransport({ baseUrl: platform.url }), platform.apiKey, 'T0TEAM');
 *   ...
 *   await platform.close();
 */
export * from './types.js';
export { startFakePlatform } from './server.js';
export { seedQuota } from './seed.js';
export { bookCall, bookChat, currentQuotaRow, dashboardHistory, type BookedCall } from './books.js';
export { SAMPLE_RECORDINGS_ORIGIN, VOICE_PREVIEWS_BASE, recordingOf } from './recordings.js';
