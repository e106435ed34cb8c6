import { afterAll, beforeAll, beforeEach } from 'vitest';
import { CampaignClient, createTransport } from '../../src/api/index.js';
import type { PlatformTransport, TransportOptions } from '../../src/api/index.js';
import { startFakePlatform } from '../fakes/platform.js';
import type { FakePlatform, RecordedRequest } from '../fakes/platform.js';

/** The workspace whose turns the harness's client takes. */
export const WORKSPACE = 'T0APITEST1';

export interface PlatformHarness {
  platform: FakePlatform;
  transport: PlatformTransport;
  client: CampaignClient;
  /** Requests the platform received for `method path` (path below /v1/api). */
  received(method: string, path: string): RecordedRequest[];
}

/**
 * One fake platform + transport per test file; fresh seed, no faults and no recorded requests per test.
 * Retries are fast by default so failure paths don't slow the suite down.
 */
export function usePlatform(transportOptions: Omit<TransportOptions, 'baseUrl'> = {}): PlatformHarness {
  const harness = {} as PlatformHarness;
  beforeAll(async () => {
    harness.platform = await startFakePlatform();
    harness.transport = createTransport({ baseUrl: harness.platform.url, retryBaseDelayMs: 5, ...transportOptions });
    harness.client = new CampaignClient(harness.transport, harness.platform.apiKey, WORKSPACE);
    harness.received = (method, path) =>
      harness.platform.requests.filter((r) => r.method === method && r.path === path);
  });
  beforeEach(() => {
    harness.platform.reset();
    harness.platform.resetState();
  });
  afterAll(async () => {
    await harness.transport.close();
    await harness.platform.close();
  });
  return harness;
}

/** Awaits a promise expected to reject and returns the error (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
