/**
 * manifest.yml must import into Slack as it is and agree with the code: every field within Slack's app
 * manifest limits, the command, shortcut and events the code listens to declared, and the bot scopes exactly
 * what the code's Web API calls, events and features need — none missing (the call would fail with
 * missing_scope), none unused (least privilege; every scope is on the install screen).
 *
 * Limits: https://docs.slack.dev/reference/app-manifest and Slack's published manifest JSON schemas, which the
 * importer enforces (https://github.com/slackapi/manifest-schema; copied in test/fixtures/slack-manifest-schema/).
 * `manifest.schema.json` picks the version by `_metadata.major_version`: version 1 (the default) wants a
 * function's parameters as a bare map, version 2 under `properties` / `required` — no manifest fits both, so
 * manifest.yml declares version 2, the form Slack's manifest reference and Bolt's custom steps use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import { parseDocument } from 'yaml';
import { BOT_SCOPES } from '../../src/bot/scopes.js';
import { CLONE_VOICE_SHORTCUT_ID, cloneVoice } from '../../src/commands/clone-voice.js';
import { COMMAND } from '../../src/commands/index.js';
import { MANIFEST_BOT_SCOPES } from '../fakes/slack.js';
import { LIST_BOOKINGS } from '../../src/workflows/bookings-list.js';
import { GET_CAMPAIGN_STATS } from '../../src/workflows/campaign-stats.js';
import { SEND_CUSTOMER_REPLY } from '../../src/workflows/customer-reply.js';

interface Manifest {
  _metadata?: { major_version?: number; minor_version?: number };
  display_information: { name: string; description?: string; long_description?: string; background_color?: string };
  features: {
    bot_user: { display_name: string };
    slash_commands?: Array<{ command: string; url?: string; description: string; usage_hint?: string }>;
    shortcuts?: Array<{ name: string; type: string; callback_id: string; description: string }>;
  };
  oauth_config: { redirect_urls?: string[]; scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url?: string; bot_events: string[] };
    interactivity: { request_url?: string; message_menu_options_url?: string };
    org_deploy_enabled?: boolean;
    function_runtime?: string;
  };
  functions?: Record<string, ManifestFunction>;
}

/** A workflow step as the manifest declares it (https://api.slack.com/automation/functions/custom-bolt). */
interface ManifestFunction {
  title: string;
  description?: string | undefined;
  input_parameters: ManifestParameters;
  output_parameters: ManifestParameters;
}

interface ManifestParameters {
  properties: Record<string, { type: string; title?: string; description?: string; is_required?: boolean }>;
  required?: string[];
}

const manifestText = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
const doc = parseDocument(manifestText, { uniqueKeys: true });
const manifest = doc.toJS() as Manifest;

/** The bot's own code: src/ without the playground (the Slack stand-in and simulator are not the bot). */
const sources: Array<{ path: string; text: string }> = readdirSync(new URL('../../src/', import.meta.url), {
  recursive: true,
  encoding: 'utf8',
})
  .filter((path) => path.endsWith('.ts') && !path.startsWith('playground'))
  .map((path) => ({ path, text: readFileSync(new URL(`../../src/${path}`, import.meta.url), 'utf8') }));

describe('manifest.yml import', () => {
  it('is valid YAML without duplicate keys', () => {
    expect(doc.errors.map(String)).toEqual([]);
    expect(doc.warnings.map(String)).toEqual([]);
  });

  it('passes Slack’s published schema, version 2 as it declares', () => {
    expect(manifest._metadata?.major_version).toBe(2);
    expect(schemaProblems(manifest)).toEqual([]);
    expect(schemaProblems(manifest, 'manifest.schema.2.0.0.json')).toEqual([]);
  });

  it('the schema refuses a manifest with a field broken', () => {
    // Without the version, Slack reads the functions as version 1 and refuses them (what the importer said).
    const unversioned = copy();
    delete unversioned._metadata;
    expect(schemaProblems(unversioned)).toContain(
      "/functions/send_customer_reply/input_parameters/properties must have required property 'type'",
    );
    const unknownType = copy();
    unknownType.functions!.list_bookings!.input_parameters.properties.campaign!.type = 'slack#/types/person';
    expect(schemaProblems(unknownType)).toContain(
      '/functions/list_bookings/input_parameters/properties/campaign/type must be equal to one of the allowed values',
    );
    const undescribed = copy();
    delete undescribed.functions!.get_campaign_stats!.description;
    expect(schemaProblems(undescribed)).toContain(
      "/functions/get_campaign_stats must have required property 'description'",
    );
    const misspelt = copy() as Manifest & { settings: { socket_mode?: boolean } };
    misspelt.settings.socket_mode = true;
    expect(schemaProblems(misspelt)).toContain('/settings must NOT have additional properties (socket_mode)');
  });

  it('keeps every field within Slack’s app manifest limits', () => {
    const problems: string[] = [];
    const length = (where: string, value: string | undefined, min: number, max: number, required = true) => {
      if (value === undefined) {
        if (required) problems.push(`${where}: missing`);
        return;
      }
      // Slack counts characters, not UTF-16 units (the descriptions use "—" and "&").
      const n = [...value].length;
      if (n < min || n > max) problems.push(`${where}: ${n} characters, allowed ${min}–${max} (“${value}”)`);
    };
    const https = (where: string, url: string | undefined) => {
      if (url !== undefined && !/^https:\/\/[^/\s]+/.test(url)) problems.push(`${where}: not an https URL (${url})`);
    };

    const info = manifest.display_information;
    length('display_information.name', info.name, 1, 35);
    length('display_information.description', info.description, 1, 140, false);
    // The reference says 174 minimum; the schema says 175: hold the stricter.
    length('display_information.long_description', info.long_description, 175, 4000, false);
    if (info.background_color !== undefined && !/^#([0-9a-f]{3}){1,2}$/i.test(info.background_color))
      problems.push(`background_color: ${info.background_color}`);
    length('features.bot_user.display_name', manifest.features.bot_user.display_name, 1, 80);

    const commands = manifest.features.slash_commands ?? [];
    if (commands.length > 50) problems.push(`slash_commands: ${commands.length}, at most 50`);
    for (const [i, c] of commands.entries()) {
      length(`slash_commands[${i}].command`, c.command, 2, 32);
      if (!/^\/\S+$/.test(c.command))
        problems.push(`slash_commands[${i}].command: must start with "/" and have no spaces (${c.command})`);
      length(`slash_commands[${i}].description`, c.description, 1, 2000);
      length(`slash_commands[${i}].usage_hint`, c.usage_hint, 1, 1000, false);
      https(`slash_commands[${i}].url`, c.url);
    }

    const shortcuts = manifest.features.shortcuts ?? [];
    if (shortcuts.length > 10) problems.push(`shortcuts: ${shortcuts.length}, at most 10`);
    for (const [i, s] of shortcuts.entries()) {
      length(`shortcuts[${i}].name`, s.name, 1, 24);
      length(`shortcuts[${i}].description`, s.description, 1, 150);
      length(`shortcuts[${i}].callback_id`, s.callback_id, 1, 255);
      if (s.type !== 'message' && s.type !== 'global') problems.push(`shortcuts[${i}].type: ${s.type}`);
    }

    https('settings.event_subscriptions.request_url', manifest.settings.event_subscriptions.request_url);
    https('settings.interactivity.request_url', manifest.settings.interactivity.request_url);
    https('settings.interactivity.message_menu_options_url', manifest.settings.interactivity.message_menu_options_url);
    for (const [i, url] of (manifest.oauth_config.redirect_urls ?? []).entries())
      https(`oauth_config.redirect_urls[${i}]`, url);
    const events = manifest.settings.event_subscriptions.bot_events;
    if (new Set(events).size !== events.length) problems.push('bot_events: duplicates');
    if (events.length > 100) problems.push(`bot_events: ${events.length}, at most 100`);
    const scopes = manifest.oauth_config.scopes.bot;
    if (new Set(scopes).size !== scopes.length) problems.push('scopes.bot: duplicates');

    expect(problems).toEqual([]);
  });
});

describe('manifest.yml and the code', () => {
  it('declares the slash command and the message shortcut the code listens to, under the name help and README use', () => {
    expect(manifest.features.slash_commands?.map((c) => c.command)).toEqual([COMMAND]);
    const shortcut = manifest.features.shortcuts?.find((s) => s.callback_id === CLONE_VOICE_SHORTCUT_ID);
    expect(shortcut?.type).toBe('message');
    // Users look for the shortcut by the name Slack shows: help and the README must use the same one.
    expect(cloneVoice.summary).toContain(`“${shortcut?.name}”`);
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain(`**${shortcut?.name}**`);
  });

  it('sends every Slack request to /slack/events and OAuth back to /slack/oauth_redirect, on one host', () => {
    // Menus with an external data source ask the options load URL (Bolt answers block_suggestion there too).
    expect(sources.some(({ text }) => /\bapp\.options\b/.test(text))).toBe(
      manifest.settings.interactivity.message_menu_options_url !== undefined,
    );
    // One host to replace (README › Set up the Slack app); the paths are the ones the receiver serves.
    const urls = [
      ...(manifest.features.slash_commands ?? []).map((c) => c.url),
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
      manifest.settings.interactivity.message_menu_options_url,
    ];
    expect(new Set(urls)).toEqual(new Set(['https://bot.example.com/slack/events']));
    expect(manifest.oauth_config.redirect_urls).toEqual(['https://bot.example.com/slack/oauth_redirect']);
  });

  it('declares exactly the workflow steps the code runs, each importable into Workflow Builder', () => {
    const declared = manifest.functions ?? {};
    expect(Object.keys(declared).sort()).toEqual([...WORKFLOW_STEP_IDS].sort());
    const problems: string[] = [];
    for (const [id, f] of Object.entries(declared)) {
      // The schema holds the types; Workflow Builder shows at most 20 parameters a side, each by its title.
      if (!f.title || !f.description) problems.push(`${id}: title and description are needed`);
      for (const side of ['input_parameters', 'output_parameters'] as const) {
        const params = Object.entries(f[side].properties);
        if (params.length > 20) problems.push(`${id}.${side}: ${params.length} parameters, at most 20`);
        for (const [name, p] of params) {
          if (!p.title) problems.push(`${id}.${side}.${name}: no title (Workflow Builder shows it)`);
          if ((p.is_required === true) !== (f[side].required ?? []).includes(name))
            problems.push(`${id}.${side}.${name}: is_required and required disagree`);
        }
      }
    }
    expect(problems).toEqual([]);
    // Steps are offered only by apps opted in to org-wide deployment, running their functions themselves.
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(manifest.settings.function_runtime).toBe('remote');
  });

  it('takes the person a step acts for from Slack’s user_context, never from a user id a builder fills in', () => {
    // https://docs.slack.dev/reference/types/user_context-type: filled from "Person who used this workflow".
    const inputs = Object.entries(manifest.functions ?? {}).flatMap(([id, f]) =>
      Object.entries(f.input_parameters.properties).map(([name, p]) => ({
        id,
        name,
        type: p.type,
        required: p.is_required,
      })),
    );
    expect(inputs.filter((i) => i.type === 'slack#/types/user_id')).toEqual([]);
    expect(inputs.filter((i) => i.type === 'slack#/types/user_context')).toEqual([
      { id: SEND_CUSTOMER_REPLY, name: 'run_by', type: 'slack#/types/user_context', required: true },
      { id: LIST_BOOKINGS, name: 'run_by', type: 'slack#/types/user_context', required: true },
    ]);
  });

  it('subscribes to exactly the events the code handles', () => {
    const handled = new Set(
      sources.flatMap(({ text }) => [...text.matchAll(/\bapp\.event\(\s*'([\w.]+)'/g)].map((m) => m[1]!)),
    );
    // A workflow step's listener (`app.function`) receives function_executed.
    if (sources.some(({ text }) => /\bapp\.function\(/.test(text))) handled.add('function_executed');
    // A `message` listener receives message.channels / message.groups / … — the subscriptions name the channel kind.
    const subscribed = manifest.settings.event_subscriptions.bot_events;
    expect(new Set(subscribed.map((e) => e.split('.')[0]!))).toEqual(handled);
  });

  it('asks for exactly the bot scopes the code needs', () => {
    const called = webApiMethods();
    const unknown = [...called].filter((m) => !(m in METHOD_SCOPES));
    expect(
      unknown,
      'Web API methods the code calls but the table below does not list: add each with its docs page',
    ).toEqual([]);

    const needed = new Map<string, string[]>();
    const need = (scope: string, why: string) => needed.set(scope, [...(needed.get(scope) ?? []), why]);
    for (const method of called) for (const scope of METHOD_SCOPES[method]!.scopes) need(scope, method);
    for (const event of manifest.settings.event_subscriptions.bot_events) {
      const row = EVENT_SCOPES[event];
      expect(row, `event ${event} is not in the table below: add it with its docs page`).toBeDefined();
      for (const scope of row!.scopes) need(scope, `event ${event}`);
    }
    for (const feature of FEATURE_SCOPES) if (feature.used()) need(feature.scope, feature.use);

    const granted = manifest.oauth_config.scopes.bot;
    expect(
      [...needed.keys()].filter((s) => !granted.includes(s)),
      'needed but not in manifest.yml',
    ).toEqual([]);
    expect(
      granted.filter((s) => !needed.has(s)),
      'in manifest.yml but used by nothing',
    ).toEqual([]);
  });

  it('OAuth installs and the Slack stand-in use the manifest’s bot scopes', () => {
    const granted = [...manifest.oauth_config.scopes.bot].sort();
    expect([...BOT_SCOPES].sort()).toEqual(granted);
    // The stand-in grants these by default, so a call the real app would not be allowed fails in tests too.
    expect([...MANIFEST_BOT_SCOPES].sort()).toEqual(granted);
  });
});

/**
 * The Web API methods the bot's code calls: `client.<family>.<method>(` / `slack.<family>.<method>(` (Bolt's
 * `client`, `ctx.client`, our own WebClients), `apiCall('<method>'`, the `filesUploadV2` helper, and Bolt's
 * `say` (chat.postMessage). `respond` posts to a response_url and needs no scope.
 */
function webApiMethods(): Set<string> {
  // The platform's API client is also called `client` (client.bookings.list): a path counts as a Web API
  // method only if WebClient has it.
  const web = new WebClient();
  const isWebApiMethod = (path: string) =>
    typeof path.split('.').reduce<unknown>((o, key) => (o as Record<string, unknown> | undefined)?.[key], web) ===
    'function';
  const methods = new Set<string>();
  for (const { text } of sources) {
    for (const m of text.matchAll(/\b(?:client|slack)\s*\.\s*([a-z]+(?:\.[a-zA-Z]+)+)\s*\(/g))
      if (isWebApiMethod(m[1]!)) methods.add(m[1]!);
    for (const m of text.matchAll(/\bapiCall\(\s*['"`]([\w.]+)['"`]/g)) methods.add(m[1]!);
    // WebClient's upload helper: files.getUploadURLExternal, a POST of the bytes, files.completeUploadExternal.
    if (/\.filesUploadV2\(/.test(text))
      for (const m of ['files.getUploadURLExternal', 'files.completeUploadExternal']) methods.add(m);
    if (/[{,]\s*say\s*[,}]/.test(text)) methods.add('chat.postMessage');
  }
  return methods;
}

type ScopeRow = { scopes: string[]; doc: string };
const method = (name: string, scopes: string[]): ScopeRow => ({
  scopes,
  doc: `https://docs.slack.dev/reference/methods/${name}`,
});

/** Bot-token scopes per Web API method, from each method's docs page (`doc`). */
const METHOD_SCOPES: Record<string, ScopeRow> = {
  'chat.postMessage': method('chat.postMessage', ['chat:write']),
  'chat.postEphemeral': method('chat.postEphemeral', ['chat:write']),
  'chat.update': method('chat.update', ['chat:write']),
  'chat.delete': method('chat.delete', ['chat:write']),
  'views.open': method('views.open', []),
  'views.update': method('views.update', []),
  'views.publish': method('views.publish', []),
  'users.info': method('users.info', ['users:read']),
  'users.list': method('users.list', ['users:read']),
  'auth.test': method('auth.test', []),
  'reactions.add': method('reactions.add', ['reactions:write']),
  'reactions.remove': method('reactions.remove', ['reactions:write']),
  'files.info': method('files.info', ['files:read']),
  'files.getUploadURLExternal': method('files.getUploadURLExternal', ['files:write']),
  'files.completeUploadExternal': method('files.completeUploadExternal', ['files:write']),
  'chat.getPermalink': method('chat.getPermalink', []),
  // Scopes by the `types` asked for: the bot asks for public_channel,private_channel.
  'users.conversations': method('users.conversations', ['channels:read', 'groups:read']),
  // A post whose answer was lost is looked up in its channel or thread: public and private channels only.
  'conversations.history': method('conversations.history', ['channels:history', 'groups:history']),
  'conversations.replies': method('conversations.replies', ['channels:history', 'groups:history']),
  // Who can read a routed channel (guests, Slack Connect): public and private channels only.
  'conversations.info': method('conversations.info', ['channels:read', 'groups:read']),
  'conversations.members': method('conversations.members', ['channels:read', 'groups:read']),
};

const event = (name: string, scopes: string[]): ScopeRow => ({
  scopes,
  doc: `https://docs.slack.dev/reference/events/${name}`,
});

/** Scopes a bot event subscription requires, from each event's docs page. */
const EVENT_SCOPES: Record<string, ScopeRow> = {
  app_home_opened: event('app_home_opened', []),
  app_uninstalled: event('app_uninstalled', []),
  tokens_revoked: event('tokens_revoked', []),
  'message.channels': event('message.channels', ['channels:history']),
  'message.groups': event('message.groups', ['groups:history']),
  function_executed: event('function_executed', []),
  member_joined_channel: event('member_joined_channel', ['channels:read', 'groups:read']),
  member_left_channel: event('member_left_channel', ['channels:read', 'groups:read']),
  channel_shared: event('channel_shared', ['channels:read', 'groups:read']),
  channel_unshared: event('channel_unshared', ['channels:read', 'groups:read']),
  team_join: event('team_join', ['users:read']),
  user_change: event('user_change', ['users:read']),
  user_guest_status_changed: event('user_guest_status_changed', ['users:read']),
  // https://docs.slack.dev/reference/scopes/metadata.message.read: "read message metadata in channels that your
  // Slack app has been added to".
  message_metadata_posted: event('message_metadata_posted', ['metadata.message:read']),
};

/** The workflow steps' callback ids the code registers (src/workflows/). */
const WORKFLOW_STEP_IDS = [SEND_CUSTOMER_REPLY, GET_CAMPAIGN_STATS, LIST_BOOKINGS];

/** Scopes that features need without a Web API call of their own. */
const FEATURE_SCOPES: Array<{ use: string; scope: string; doc: string; used: () => boolean }> = [
  {
    use: 'slash command and shortcuts',
    scope: 'commands',
    doc: 'https://docs.slack.dev/reference/scopes/commands',
    used: () => (manifest.features.slash_commands?.length ?? 0) + (manifest.features.shortcuts?.length ?? 0) > 0,
  },
  {
    use: 'file_input element in a modal',
    scope: 'files:read',
    doc: 'https://docs.slack.dev/reference/block-kit/block-elements/file-input-element',
    used: () => sources.some(({ path, text }) => !path.endsWith('modals.ts') && /\bfileInput\(/.test(text)),
  },
  {
    use: 'downloading url_private_download with the bot token',
    scope: 'files:read',
    doc: 'https://docs.slack.dev/reference/objects/file-object',
    used: () =>
      sources.some(({ path, text }) => !path.endsWith('file-download.ts') && /\bslackFileStream\(/.test(text)),
  },
];

const SCHEMAS = new URL('../fixtures/slack-manifest-schema/', import.meta.url);
const readSchema = (file: string) =>
  JSON.parse(readFileSync(new URL(file, SCHEMAS), 'utf8')) as Record<string, unknown>;

/**
 * What Slack's published schema says of a manifest, one line per problem (`<path> <message>`):
 * `manifest.schema.json` (which picks the version as Slack does, its versions' remote references served from the
 * copies) or one version's file.
 */
function schemaProblems(m: unknown, file = 'manifest.schema.json'): string[] {
  const validate = validators.get(file) ?? ajv.compile(readSchema(file));
  validators.set(file, validate);
  if (validate(m)) return [];
  return (validate.errors ?? []).map((e: ErrorObject) => {
    const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
    return `${e.instancePath} ${e.message ?? e.keyword}${extra}`;
  });
}

// `uri` is the one format the schemas use; ajv knows none without a plugin.
const ajv = new Ajv({ allErrors: true, strict: false, formats: { uri: (s: string) => URL.canParse(s) } });
for (const ref of JSON.stringify(readSchema('manifest.schema.json')).match(
  /https:[^"]+\/manifest\.schema\.\d\.0\.0\.json/g,
) ?? [])
  if (!ajv.getSchema(ref)) ajv.addSchema(readSchema(ref.slice(ref.lastIndexOf('/') + 1)), ref);
const validators = new Map<string, ValidateFunction>();

/** A copy of the manifest to break one field of. */
const copy = (): Manifest => structuredClone(manifest);
