/**
 * Traces (docs/OPERATIONS.md › Traces): with OTEL_EXPORTER_OTLP_ENDPOINT set, a webhook's intake, the worker, the
 * channel's post and Slack's `chat.postMessage` are one trace, exported over OTLP/HTTP (JSON) to a collector — here
 * a plain HTTP server of the test's. A slash command and its platform call are one trace too. No span carries
 * a customer's number, name or words, nor a token.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { SIGNING_SECRET, TEAM_ID, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { CALL_COMPLETED_FULL, MESSAGE_RECEIVED_FULL } from '../events/fixtures.js';
import { deliver, posts, queueDrained, routeTo, run, startEventsHarness } from '../events/support.js';

const redis = await requireRedis();

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: Array<{ key: string; value: OtlpValue }>;
}
interface OtlpBody {
  resourceSpans: Array<{
    resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
    scopeSpans: Array<{ spans: OtlpSpan[] }>;
  }>;
}

/** A collector's OTLP/HTTP receiver: what it was sent, as sent. */
async function startCollector() {
  const bodies: Array<{ path: string; headers: IncomingHttpHeaders; text: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', headers: req.headers, text: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans: () =>
      bodies.flatMap((b) =>
        (JSON.parse(b.text) as OtlpBody).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  return v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.boolValue ?? v.doubleValue;
}

const COLLECTOR_KEY = 'otlp-collector-key-7f3a9c';
/** Another customer's conversation: its first post is refused once, so it waits in its channel's outbox and is posted later. */
const WAITING_MESSAGE = {
  ...MESSAGE_RECEIVED_FULL,
  customerNumber: '+14155550177',
  customerName: 'Emma Parker',
  messageContent: 'Is the clinic open on Saturday?',
};

describe('traces, with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let h: Harness;
  let hookToken = '';
  const callChannel = 'C0TRACECALL';
  const chatChannel = 'C0TRACECHAT';

  beforeAll(async () => {
    collector = await startCollector();
    h = await startEventsHarness({
      redisUrl: redis.url,
      keyPrefix: `${redis.prefix}tracing:`,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_KEY}`,
        OTEL_SERVICE_NAME: 'campaign-bot-under-test',
      },
    });
    const hook = await routeTo(h, [
      { campaignId: 'camp-1', triggerName: 'call_completed', channelId: callChannel },
      { campaignId: 'camp-chat', triggerName: 'message_received', channelId: chatChannel },
    ]);
    hookToken = new URL(hook).pathname.split('/').pop()!;

    // A completed call (the call outbox and the channel's scheduler), a customer's message (the handoff thread).
    expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId: 'call-trace-1' }])).status).toBe(200);
    await h.slack.waitFor(() => posts(h, callChannel)[0]);
    expect((await deliver(hook, [MESSAGE_RECEIVED_FULL])).status).toBe(200);
    await h.slack.waitFor(() => posts(h, chatChannel)[0]);
    await queueDrained(h);
    // Slack refuses the next post for a moment: the customer's message waits in the channel's outbox, then goes.
    h.slack.failMethod('chat.postMessage', 'service_unavailable', 1);
    expect((await deliver(hook, [WAITING_MESSAGE])).status).toBe(200);
    await h.slack.waitFor(() => posts(h, chatChannel)[1]);
    await queueDrained(h);
    const { text } = await run(h, 'stats');
    expect(text).toContain('Top campaigns');
    // A graceful stop sends the spans still buffered.
    await h.close();
  }, 30_000);

  afterAll(async () => {
    await h?.close();
    await collector?.close();
  });

  it('exports to the collector over OTLP/HTTP JSON, with its headers and the service name', () => {
    expect(collector.bodies.length).toBeGreaterThan(0);
    for (const body of collector.bodies) {
      expect(body.path).toBe('/v1/traces');
      expect(body.headers['content-type']).toMatch(/application\/json/);
      expect(body.headers.authorization).toBe(`Bearer ${COLLECTOR_KEY}`);
    }
    const resource = (JSON.parse(collector.bodies[0]!.text) as OtlpBody).resourceSpans[0]!.resource;
    expect(resource?.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'campaign-bot-under-test' },
    });
  });

  it('makes one trace of a webhook: intake → worker → channel post → chat.postMessage', () => {
    const spans = collector.spans();
    const intakes = spans.filter((s) => s.name === 'webhook intake');
    expect(intakes).toHaveLength(3);
    const callIntake = intakes[0]!;
    expect(attr(callIntake, 'http.route')).toBe('/hooks/{token}');
    expect(attr(callIntake, 'http.response.status_code')).toBe(200);
    expect(attr(callIntake, 'campaign.team_id')).toBe(TEAM_ID);
    expect(attr(callIntake, 'campaign.trigger')).toBe('call_completed');

    const trace = spans.filter((s) => s.traceId === callIntake.traceId);
    const handle = trace.find((s) => s.name === 'event handle');
    expect(handle?.parentSpanId).toBe(callIntake.spanId);
    expect(attr(handle!, 'campaign.trigger')).toBe('call_completed');
    const post = trace.find((s) => s.name === 'channel post');
    expect(post?.parentSpanId).toBe(handle!.spanId);
    expect(attr(post!, 'campaign.channel_id')).toBe(callChannel);
    expect(attr(post!, 'campaign.lane')).toBe('routine');
    const slackPosts = trace.filter((s) => s.name === 'slack chat.postMessage');
    // The card, and the transcript in its thread.
    expect(slackPosts.length).toBeGreaterThanOrEqual(1);
    for (const s of slackPosts) {
      expect(attr(s, 'slack.method')).toBe('chat.postMessage');
      expect(attr(s, 'http.response.status_code')).toBe(200);
    }
    expect(slackPosts.some((s) => s.parentSpanId === post!.spanId)).toBe(true);

    // The customer's message: posted by the worker itself, in the trace of its own webhook.
    const chatIntake = intakes[1]!;
    const chatTrace = spans.filter((s) => s.traceId === chatIntake.traceId);
    expect(chatTrace.map((s) => s.name)).toEqual(
      expect.arrayContaining(['webhook intake', 'event handle', 'slack chat.postMessage']),
    );
  });

  it('keeps the trace of an event that waited in its channel: refused post → channel post → its run there', () => {
    const spans = collector.spans();
    const intake = spans.filter((s) => s.name === 'webhook intake')[2]!;
    const trace = spans.filter((s) => s.traceId === intake.traceId);
    const refused = trace.find((s) => s.name === 'slack chat.postMessage' && attr(s, 'slack.error'));
    expect(refused && attr(refused, 'slack.error')).toBe('service_unavailable');
    // The worker's run (a child of the intake) handed it to its channel; the channel's post runs it again, in the same trace.
    const handled = trace.find((s) => s.name === 'event handle' && s.parentSpanId === intake.spanId);
    const channelPosts = trace.filter((s) => s.name === 'channel post');
    expect(channelPosts.length).toBeGreaterThanOrEqual(1);
    for (const post of channelPosts) {
      expect(post.parentSpanId).toBe(handled!.spanId);
      expect(attr(post, 'campaign.lane')).toBe('urgent');
    }
    const channelRuns = trace.filter(
      (s) => s.name === 'event handle' && channelPosts.some((p) => p.spanId === s.parentSpanId),
    );
    expect(channelRuns.map((s) => attr(s, 'campaign.channel_id'))).toContain(chatChannel);
    const shown = trace.filter(
      (s) =>
        s.name === 'slack chat.postMessage' &&
        attr(s, 'http.response.status_code') === 200 &&
        !attr(s, 'slack.error') &&
        channelRuns.some((r) => r.spanId === s.parentSpanId),
    );
    expect(shown.length).toBeGreaterThanOrEqual(1);
  });

  it('makes one trace of a command and its platform call, by route template', () => {
    const spans = collector.spans();
    const command = spans.find((s) => s.name === 'command /campaign');
    expect(command && attr(command, 'campaign.subcommand')).toBe('stats');
    const trace = spans.filter((s) => s.traceId === command!.traceId);
    const platform = trace.find((s) => s.name.startsWith('platform '));
    expect(platform && attr(platform, 'url.template')).toBe('/dashboard/dashboard-stats');
    expect(attr(platform!, 'http.request.method')).toBe('GET');
    expect(attr(platform!, 'http.response.status_code')).toBe(200);
    expect(trace.map((s) => s.name)).toContain('command reply');
  });

  it('carries no customer data and no secret in any span', () => {
    const exported = collector.bodies.map((b) => b.text).join('\n');
    const forbidden = [
      CALL_COMPLETED_FULL.customerNumber,
      'Olivia',
      CALL_COMPLETED_FULL.customerEmail,
      'Customer confirmed',
      'Hi Olivia',
      MESSAGE_RECEIVED_FULL.customerNumber,
      'Noah',
      'Can I move my appointment',
      WAITING_MESSAGE.customerNumber,
      'Emma',
      'Parker',
      'clinic open',
      hookToken,
      h.slack.botToken,
      h.platform.apiKey,
      SIGNING_SECRET,
      COLLECTOR_KEY,
    ];
    expect(hookToken.length).toBeGreaterThan(20);
    expect(forbidden.filter((s) => exported.includes(s))).toEqual([]);
  });
});

describe('traces are off unless asked for', () => {
  const base = {
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: 'secret',
    CAMPAIGN_API_URL: 'https://api.example.com/v1/api',
  };
  const tracing = (env: Record<string, string>) => {
    const parsed = parseConfig({ ...base, ...env });
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    return parsed.config.tracing;
  };

  it('is off without an endpoint or an exporter, and with OTEL_TRACES_EXPORTER=none', () => {
    expect(tracing({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(tracing({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
    expect(tracing({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
  });

  it('reads the standard variables', () => {
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      serviceName: 'campaign-slack-bot',
      url: 'http://localhost:4318/v1/traces',
      headers: {},
      sampleRatio: 1,
    });
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).toMatchObject({ url: 'http://collector:4318/v1/traces', sampleRatio: 0.25 });
    expect(tracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example.com/traces' })?.url).toBe(
      'https://otlp.example.com/traces',
    );
  });

  it('lists problems by name, never by value', () => {
    const parsed = parseConfig({
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=supersecretvalue',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_TRACES_SAMPLER_ARG: '7',
    });
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? [] : parsed.problems;
    expect(problems).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL: must be http/json (the only OTLP protocol this bot sends)',
      'OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1',
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be https when OTEL_EXPORTER_OTLP_HEADERS is set (plain http only to loopback)',
    ]);
    expect(problems.join(' ')).not.toContain('supersecretvalue');
  });
});
