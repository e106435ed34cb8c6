/**
 * How Slack traffic reaches the app: Bolt's HTTPReceiver on PORT (`/slack/events`), or Socket Mode
 * when SLACK_APP_TOKEN is set. Either way our own routes (health, metrics, webhooks, OAuth install)
 * are served on PORT.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  HTTPReceiver,
  HTTPReceiverDeferredRequestError,
  SocketModeReceiver,
  type App,
  type CustomRoute,
} from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import { boltLogger } from '../slack/logger.js';
import { BOT_SCOPES } from './scopes.js';

/** Slack's own replay window is 5 minutes into the past; we refuse the same into the future. */
const MAX_FUTURE_SKEW_S = 5 * 60;
const OAUTH_REDIRECT_PATH = '/slack/oauth_redirect';

export interface SlackReceiver {
  receiver: HTTPReceiver | SocketModeReceiver;
  /** Starts the app on it; resolves with the HTTP port serving our routes. */
  listen(this: void, app: App): Promise<number>;
}

export function createReceiver(
  config: Config,
  store: Store,
  customRoutes: CustomRoute[],
  logger: Logger,
  host?: string,
): SlackReceiver {
  const oauth = oauthOptions(config, store);
  if (config.slack.appToken) {
    const receiver = new SocketModeReceiver({
      appToken: config.slack.appToken,
      customRoutes,
      logger: boltLogger(logger, 'bolt-socket-mode'),
      ...oauth.credentials,
      installerOptions: {
        ...oauth.installerOptions,
        port: config.port,
        clientOptions: { slackApiUrl: config.slack.apiUrl },
      },
    });
    return {
      receiver,
      async listen(app) {
        await app.start();
        return config.port;
      },
    };
  }

  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret ?? '',
    customRoutes,
    logger: boltLogger(logger, 'bolt-receiver'),
    // Ack first, work after: listeners call ack() before any slow I/O.
    processBeforeResponse: false,
    dispatchErrorHandler: ({ error, request, response }) => {
      // Bolt's default logs the full URL, and ours can carry a hook token; a path it can't route
      // (unknown, or malformed percent-encoding) is a 404, not a 500.
      const known = error instanceof HTTPReceiverDeferredRequestError || error instanceof URIError;
      logger.info(
        { method: request.method, path: maskHookPath(request.url ?? '') },
        known ? 'no route for request' : 'request failed before routing',
      );
      response.writeHead(known ? 404 : 500);
      response.end();
    },
    ...oauth.credentials,
    ...(Object.keys(oauth.credentials).length > 0 ? { installerOptions: oauth.installerOptions } : {}),
  });
  serveSimpleRoutesFirst(receiver, customRoutes);
  refuseFutureTimestamps(receiver);
  return {
    receiver,
    async listen(app) {
      const server = (await app.start(host === undefined ? config.port : { port: config.port, host })) as Server;
      return (server.address() as AddressInfo).port;
    },
  };
}

/** OAuth multi-workspace: Bolt serves /slack/install and the redirect, and authorizes each request from our InstallationStore. */
function oauthOptions(config: Config, store: Store) {
  const mode = config.slack.mode;
  if (mode.kind !== 'oauth') return { credentials: {}, installerOptions: {} };
  const origin = new URL(config.slack.apiUrl).origin;
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
      // Slack's authorize page lives beside its Web API; only a non-default API base (a test fake) moves it.
      ...(origin === 'https://slack.com' ? {} : { authorizationUrl: `${origin}/oauth/v2/authorize` }),
    },
  };
}

/** A custom route path made of literal segments and `:name` parameters only, e.g. `/hooks/:token`. */
const SIMPLE_ROUTE = /^(\/(?:[A-Za-z0-9_.-]+|:[A-Za-z_][A-Za-z0-9_]*))*\/?$/;

/** A request target `new URL` would not change: letters, digits, `_`, `-` and single slashes, no query. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)+$/;

interface CompiledRoute {
  pattern: RegExp;
  names: string[];
  handlers: Map<string, CustomRoute['handler']>;
}

/**
 * Serves simple custom routes before Bolt, compiled once: Bolt compiles every route pattern again on each
 * request, a measurable share of the webhook hot path. Bolt's matching rules are kept; the rest goes to Bolt.
 */
function serveSimpleRoutesFirst(receiver: HTTPReceiver, customRoutes: readonly CustomRoute[]): void {
  if (customRoutes.length === 0 || !customRoutes.every((r) => SIMPLE_ROUTE.test(r.path))) return;
  const byPath = new Map<string, CompiledRoute>();
  for (const route of customRoutes) {
    let compiled = byPath.get(route.path);
    if (!compiled) {
      const names: string[] = [];
      const source = route.path
        .split('/')
        .filter((segment) => segment !== '')
        .map((segment) => {
          if (!segment.startsWith(':')) return `/${segment.replace(/[.]/g, '\\.')}`;
          names.push(segment.slice(1));
          return '/([^/]+)';
        })
        .join('');
      compiled = { pattern: new RegExp(`^${source}(?:/)?$`, 'i'), names, handlers: new Map() };
      byPath.set(route.path, compiled);
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method])
      compiled.handlers.set(method.toUpperCase(), route.handler);
  }
  const routes = [...byPath.values()];
  const handle = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    // A plain path (the webhooks' own) is its own pathname; anything else is normalised as Bolt would.
    const path = PLAIN_PATH.test(url) ? url : new URL(url, 'http://localhost').pathname;
    const method = (req.method ?? '').toUpperCase();
    for (const route of routes) {
      const match = route.pattern.exec(path);
      const handler = match ? route.handlers.get(method) : undefined;
      if (!match || !handler) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1]!)));
      handler(Object.assign(req, { params }), res);
      return;
    }
    handle(req, res);
  };
}

/**
 * Bolt rejects stale request timestamps but accepts any future one. A request signed for the future
 * could be replayed until then, so it gets the same 401 a stale one gets.
 */
function refuseFutureTimestamps(receiver: HTTPReceiver): void {
  const handle = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const ts = Number(req.headers['x-slack-request-timestamp']);
    if (Number.isFinite(ts) && ts - Date.now() / 1000 > MAX_FUTURE_SKEW_S) {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('request timestamp is in the future');
      return;
    }
    handle(req, res);
  };
}

/** `/hooks/<token>/…` → `/hooks/…`: hook tokens are secrets and never reach a log line. */
function maskHookPath(url: string): string {
  return url.replace(/^\/hooks\/[^/?#]*/, '/hooks/…').slice(0, 200);
}
