/**
 * How Slack traffic reaches the app — our own Bolt receiver, on our own HTTP server on PORT:
 *
 *   - HTTP mode: `POST /slack/events` passes the gate (slack-gate.ts: limits, then the signature over the raw
 *     bytes), is parsed, and goes to `app.processEvent`; `url_verification` and `app_rate_limited` are answered
 *     here and reach no listener.
 *   - Socket Mode (SLACK_APP_TOKEN): the events come over Bolt's Socket Mode client and go to
 *     `app.processEvent` from here too.
 *
 * Either way our routes (health, metrics, webhooks, file links) and the OAuth install pages are served on PORT
 * by Bolt's router (an HTTPReceiver configured as one: no endpoints, nothing to verify) behind the limits of
 * `http-server.ts`. The receiver calls `app.processEvent` itself, so it knows when Bolt is done with a request
 * (`onRequestDone`) without patching Bolt.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  HTTPModuleFunctions,
  HTTPReceiver,
  HTTPReceiverDeferredRequestError,
  HTTPResponseAck,
  SocketModeReceiver,
  defaultProcessEventErrorHandler,
  type App,
  type BufferedIncomingMessage,
  type CustomRoute,
  type Receiver,
  type ReceiverEvent,
} from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import { slackAuthorizeUrl } from '../slack/hosts.js';
import { boltLogger } from '../slack/logger.js';
import { clientKeyOf } from './client-address.js';
import { appRateLimitedNotice, type AppRateLimitedNotice } from './app-rate-limited.js';
import {
  answerRouteError,
  capConnections,
  refuseAmbiguousPath,
  serverOptions,
  type HttpLimits,
} from './http-server.js';
import { signatureProperties } from './replay-guard.js';
import { BOT_SCOPES } from './scopes.js';
import { gateSlackRequests, isSlackEventsPath, type SlackGateLimits } from './slack-gate.js';

const OAUTH_REDIRECT_PATH = '/slack/oauth_redirect';

export interface ReceiverLimits {
  http: HttpLimits;
  slack: SlackGateLimits;
}

export interface ReceiverOptions {
  customRoutes: CustomRoute[];
  limits: ReceiverLimits;
  /** Interface to listen on; all interfaces by default. */
  host?: string;
  /** Slack is limiting the events it sends this app for a workspace (answered 200 before this is called). */
  onAppRateLimited: (notice: AppRateLimitedNotice) => void;
  /** Bolt is done with a Slack request: every middleware and listener, and the error handler if any. */
  onRequestDone?: (body: unknown) => void;
}

type Handle = (req: IncomingMessage, res: ServerResponse) => void;

export class SlackReceiver implements Receiver {
  private app: App | undefined;
  private readonly server: Server;
  private readonly socketMode: SocketModeReceiver | undefined;
  private readonly bolt: ReturnType<typeof boltLogger>;
  /** Bolt's OAuth installer in OAuth mode: the app authorizes each request with it. */
  readonly installer: HTTPReceiver['installer'];

  constructor(
    private readonly config: Config,
    store: Store,
    private readonly logger: Logger,
    private readonly options: ReceiverOptions,
  ) {
    this.bolt = boltLogger(logger, 'bolt-receiver');
    const onRouteError = (err: unknown, req: IncomingMessage, res: ServerResponse) =>
      answerRouteError(logger, err, req, res, (e) => e instanceof HTTPReceiverDeferredRequestError);
    const oauth = oauthOptions(config, store);
    // Bolt's router for everything but Slack's requests: our routes, the OAuth pages, its 404.
    const router = new HTTPReceiver({
      // Slack's requests never reach it (the gate verifies them, and only them): nothing to verify here.
      endpoints: [],
      signatureVerification: false,
      signingSecret: '',
      customRoutes: options.customRoutes,
      logger: this.bolt,
      // Bolt's default logs the full URL, and ours can carry a hook token; a path it can't route
      // (unknown, or malformed percent-encoding) is a 404, not a 500.
      dispatchErrorHandler: ({ error, request, response }) => onRouteError(error, request, response),
      ...oauth.credentials,
      ...(Object.keys(oauth.credentials).length > 0 ? { installerOptions: oauth.installerOptions } : {}),
    });
    this.installer = router.installer;
    const routes: Handle = (req, res) => {
      try {
        router.requestListener(req, res);
      } catch (err) {
        onRouteError(err, req, res);
      }
    };

    let handle = routes;
    if (config.slack.appToken) {
      // Only its client is used: built without routes or OAuth, Bolt's Socket Mode receiver makes no server.
      this.socketMode = new SocketModeReceiver({
        appToken: config.slack.appToken,
        logger: boltLogger(logger, 'bolt-socket-mode'),
        installerOptions: { clientOptions: { slackApiUrl: config.slack.apiUrl } },
      });
      this.socketMode.client.on('slack_event', (args: SocketModeEvent) => void this.socketModeEvent(args));
    } else {
      const slackEvents = gateSlackRequests({
        signingSecret: config.slack.signingSecret ?? '',
        limits: options.limits.slack,
        verified: (req, res) => void this.httpEvent(req, res),
        onError: onRouteError,
        clientOf: clientKeyOf(config.trustedProxies),
      });
      handle = (req, res) =>
        req.method === 'POST' && isSlackEventsPath(req.url ?? '') ? slackEvents(req, res) : routes(req, res);
    }
    this.server = createServer(serverOptions(options.limits.http), (req, res) => {
      try {
        if (!refuseAmbiguousPath(req, res)) handle(req, res);
      } catch (err) {
        onRouteError(err, req, res);
      }
    });
    capConnections(this.server, options.limits.http);
  }

  init(app: App): void {
    this.app = app;
  }

  /** Listens on PORT (and connects Socket Mode); `App.start()` calls it. */
  async start(): Promise<{ port: number; server: Server }> {
    const { host } = this.options;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port: this.config.port, ...(host === undefined ? {} : { host }) }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    await this.socketMode?.start();
    return this.address();
  }

  /** The server on PORT and the port it is bound to (once started). */
  address(): { port: number; server: Server } {
    return { port: (this.server.address() as AddressInfo).port, server: this.server };
  }

  async stop(): Promise<void> {
    await this.socketMode?.stop();
    if (!this.server.listening) return;
    await new Promise<void>((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }

  /** A verified `/slack/events` request (slack-gate.ts). */
  private async httpEvent(req: BufferedIncomingMessage, res: ServerResponse): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = HTTPModuleFunctions.parseHTTPRequestBody(req) as Record<string, unknown>;
    } catch {
      this.logger.info('a signed Slack request whose body could not be parsed: 400');
      HTTPModuleFunctions.buildNoBodyResponse(res, 400);
      return;
    }
    if (body.type === 'url_verification') {
      HTTPModuleFunctions.buildUrlVerificationResponse(res, body);
      return;
    }
    const rateLimited = appRateLimitedNotice(body);
    if (rateLimited) {
      // Slack turns event delivery off for an app that fails 5% of them in an hour: answered before anything else.
      HTTPModuleFunctions.buildNoBodyResponse(res, 200);
      this.options.onAppRateLimited(rateLimited);
      return;
    }
    const ack = new HTTPResponseAck({
      logger: this.bolt,
      processBeforeResponse: false,
      httpRequest: req,
      httpRequestBody: body,
      httpResponse: res,
    });
    const event: ReceiverEvent = {
      body,
      ack: ack.bind(),
      ...retryOf(
        HTTPModuleFunctions.extractRetryNumFromHTTPRequest(req),
        HTTPModuleFunctions.extractRetryReasonFromHTTPRequest(req),
      ),
      // The verified signature, for the replay guard (replay-guard.ts).
      customProperties: signatureProperties(req),
    };
    await this.process(event, (error) =>
      HTTPModuleFunctions.defaultProcessEventErrorHandler({
        error,
        logger: this.bolt,
        request: req,
        response: res,
        // Listeners ack before they work (processBeforeResponse: false): no answer is ever held back.
        storedResponse: undefined,
      }),
    );
  }

  /** An envelope over the Socket Mode connection (what Bolt's SocketModeReceiver does with it). */
  private async socketModeEvent(args: SocketModeEvent): Promise<void> {
    let acked = false;
    const event: ReceiverEvent = {
      body: args.body,
      ack: async (response?: unknown) => {
        if (acked) return;
        acked = true;
        await args.ack(response);
      },
      ...retryOf(args.retry_num, args.retry_reason),
    };
    await this.process(event, (error) => defaultProcessEventErrorHandler({ error, logger: this.bolt, event }));
  }

  /** Hands the event to Bolt; on a throw, Bolt's default handler says whether to ack; then tells it is done. */
  private async process(event: ReceiverEvent, onError: (error: Error) => Promise<boolean>): Promise<void> {
    try {
      await this.app?.processEvent(event);
    } catch (err) {
      if (await onError(err instanceof Error ? err : new Error(String(err)))) await event.ack();
    } finally {
      this.options.onRequestDone?.(event.body);
    }
  }
}

/** What Bolt's Socket Mode client hands its `slack_event` listeners (@slack/socket-mode). */
interface SocketModeEvent {
  body: Record<string, unknown>;
  ack: (response?: unknown) => Promise<void>;
  retry_num?: number;
  retry_reason?: string;
}

function retryOf(retryNum: number | undefined, retryReason: string | undefined) {
  return {
    ...(retryNum === undefined ? {} : { retryNum }),
    ...(retryReason === undefined ? {} : { retryReason }),
  };
}

/** OAuth multi-workspace: Bolt serves /slack/install and the redirect, and authorizes each request from our InstallationStore. */
function oauthOptions(config: Config, store: Store) {
  const mode = config.slack.mode;
  if (mode.kind !== 'oauth') return { credentials: {}, installerOptions: {} };
  return {
    credentials: {
      clientId: mode.clientId,
      clientSecret: mode.clientSecret,
      // The OAuth state travels in a cookie signed with this secret: any replica can finish an install.
      stateSecret: mode.stateSecret,
      scopes: [...BOT_SCOPES],
      installationStore: store.installations,
      ...(config.publicUrl ? { redirectUri: `${config.publicUrl}${OAUTH_REDIRECT_PATH}` } : {}),
    },
    installerOptions: {
      directInstall: true,
      redirectUriPath: OAUTH_REDIRECT_PATH,
      clientOptions: { slackApiUrl: config.slack.apiUrl },
      // Slack's authorize page lives beside its Web API: on SLACK_DOMAIN (GovSlack's own), or a stand-in's.
      authorizationUrl: slackAuthorizeUrl(config.slack),
    },
  };
}
