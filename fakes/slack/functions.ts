/**
 * Workflow Builder steps (an app's custom functions). Slack runs a step by sending the app `function_executed`
 * with the step's inputs and a workflow token for that run
 * (https://docs.slack.dev/reference/events/function_executed); the app ends the run once, with
 * functions.completeSuccess — outputs that conform to the step's declared output parameters — or
 * functions.completeError — a message Slackbot shows the person
 * (https://docs.slack.dev/reference/methods/functions.completeSuccess,
 * https://docs.slack.dev/reference/methods/functions.completeError). Errors as those pages list them:
 * `function_execution_not_found`, `execution_not_in_running_state`, `parameter_validation_failed`,
 * `access_denied`.
 *
 * An input of type `slack#/types/user_context` is Slack's to fill, never the workflow builder's: in a workflow it
 * is "Person who used this workflow", sent as `{ id, secret }`
 * (https://docs.slack.dev/reference/types/user_context-type). A run names that person (`user`) and cannot set
 * the input itself.
 */
import type { Handler, SlackState, TokenInfo } from './state.js';
import type { FunctionDefinition, FunctionExecution, FunctionParameter } from './function-types.js';
import type { SlackArgs } from './types.js';
import { clone, fail, hex, invalidArguments, isObj, slackId, str, type Json } from './util.js';

/** Starts a run of the declared step `callbackId`: its workflow token is valid from now on. */
export function startExecution(
  s: SlackState,
  p: { callbackId: string; inputs: Record<string, unknown>; teamId?: string; user?: string },
): { execution: FunctionExecution; event: Json } {
  const definition = (s.opts.functions ?? []).find((f) => f.callback_id === p.callbackId);
  if (!definition) {
    // Slack runs only the steps an app declares (manifest `functions:`): a test asking for another is wrong.
    throw new Error(`Slack stand-in: no function ${p.callbackId} is declared (FakeSlackOptions.functions)`);
  }
  const inputs = withUserContext(definition, p);
  const missing = definition.input_parameters.filter((i) => i.is_required && isAbsent(inputs[i.name]));
  if (missing.length > 0) {
    // Workflow Builder does not save a workflow whose step lacks a required input.
    throw new Error(`Slack stand-in: ${p.callbackId} needs inputs ${missing.map((i) => i.name).join(', ')}`);
  }
  const teamId = p.teamId ?? s.teamId;
  const bot = s.tokens.get(s.botToken);
  const token = `xwfp-${Date.now() % 1e12}-${hex(8)}-${hex(16)}`;
  s.tokens.set(token, {
    token,
    kind: 'bot',
    teamId,
    userId: s.botUserId,
    botId: s.botId,
    scopes: [...(bot?.scopes ?? s.opts.scopes)],
    revoked: false,
  });
  const execution: FunctionExecution = {
    id: slackId('Fx'),
    workflowExecutionId: slackId('Wx'),
    callbackId: p.callbackId,
    teamId,
    inputs: clone(inputs),
    token,
    state: 'running',
  };
  s.functionRuns.set(execution.id, execution);
  const now = Math.floor(Date.now() / 1000);
  const event: Json = {
    type: 'function_executed',
    function: {
      id: slackId('Fn'),
      callback_id: definition.callback_id,
      title: definition.title,
      description: definition.description ?? '',
      type: 'app',
      input_parameters: definition.input_parameters,
      output_parameters: definition.output_parameters,
      app_id: s.appId,
      date_created: now,
      date_updated: now,
      date_deleted: 0,
    },
    inputs: clone(inputs),
    function_execution_id: execution.id,
    workflow_execution_id: execution.workflowExecutionId,
    event_ts: s.nextTs(),
    bot_access_token: token,
  };
  return { execution: clone(execution), event };
}

/**
 * The run's inputs as Slack sends them: what the workflow passes the step (declared inputs only), and each
 * `user_context` input filled with the person who used the workflow (a value for it in `p.inputs` is refused: no
 * builder can set one). Without a person — a scheduled run — it stays unset.
 */
function withUserContext(
  definition: FunctionDefinition,
  p: { callbackId: string; inputs: Record<string, unknown>; user?: string },
): Record<string, unknown> {
  const declared = new Map(definition.input_parameters.map((i) => [i.name, i]));
  const undeclared = Object.keys(p.inputs).filter((name) => !declared.has(name));
  if (undeclared.length > 0)
    throw new Error(`Slack stand-in: ${p.callbackId} declares no inputs ${undeclared.join(', ')}`);
  const inputs = { ...p.inputs };
  for (const param of definition.input_parameters) {
    if (param.type !== USER_CONTEXT) continue;
    if (param.name in p.inputs)
      throw new Error(
        `Slack stand-in: ${p.callbackId}.${param.name} is a user_context: Slack fills it, not the workflow`,
      );
    if (p.user !== undefined) inputs[param.name] = { id: p.user, secret: hex(16) };
  }
  return inputs;
}

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

function finish(s: SlackState, args: SlackArgs, auth: TokenInfo, how: 'success' | 'error'): Json {
  const id = str(args, 'function_execution_id');
  if (!id) return invalidArguments(['missing function_execution_id']);
  const run = s.functionRuns.get(id);
  if (!run) return fail('function_execution_not_found');
  // Another workspace's token, or a workflow token of another run, has no access to this one.
  if (auth.teamId !== run.teamId || (auth.token.startsWith('xwfp-') && auth.token !== run.token))
    return fail('access_denied');
  if (run.state !== 'running') return fail('execution_not_in_running_state');
  if (how === 'error') {
    const error = str(args, 'error');
    if (!error) return invalidArguments(['missing error']);
    run.state = 'failed';
    run.error = error;
    return { ok: true };
  }
  const outputs = args.outputs;
  if (!isObj(outputs)) return invalidArguments(['outputs: not an object']);
  const definition = (s.opts.functions ?? []).find((f) => f.callback_id === run.callbackId);
  const problems = outputProblems(definition?.output_parameters ?? [], outputs);
  if (problems.length > 0) return fail('parameter_validation_failed', { errors: problems });
  run.state = 'completed';
  run.outputs = clone(outputs);
  return { ok: true };
}

/** What Slack's check of outputs against the declared parameters finds: unknown names, missing ones, wrong types. */
function outputProblems(declared: readonly FunctionParameter[], outputs: Json): string[] {
  const problems: string[] = [];
  const byName = new Map(declared.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(outputs)) {
    const param = byName.get(name);
    if (!param) problems.push(`${name}: not an output parameter of this function`);
    else if (!fitsType(param.type, value)) problems.push(`${name}: expected ${param.type}`);
  }
  for (const p of declared) if (p.is_required && isAbsent(outputs[p.name])) problems.push(`${p.name}: required`);
  return problems;
}

function fitsType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'slack#/types/user_id':
      return typeof value === 'string' && /^[UW][A-Z0-9]{2,}$/.test(value);
    case 'slack#/types/channel_id':
      return typeof value === 'string' && /^[CGD][A-Z0-9]{2,}$/.test(value);
    default:
      return value !== undefined;
  }
}

export function functionHandlers(s: SlackState): Record<string, Handler> {
  return {
    'functions.completeSuccess': (args, auth) => finish(s, args, auth, 'success'),
    'functions.completeError': (args, auth) => finish(s, args, auth, 'error'),
  };
}

const USER_CONTEXT = 'slack#/types/user_context';

/**
 * The parameter types the stand-in models (checks outputs of, fills inputs of): a manifest declaring another is
 * refused, so a test never runs a step whose inputs Slack would send differently.
 */
const KNOWN_TYPES = new Set([
  'string',
  'integer',
  'number',
  'boolean',
  'slack#/types/user_id',
  'slack#/types/channel_id',
  USER_CONTEXT,
]);

/** The manifest's `functions:` (keyed by callback id, parameters under `properties`) as the stand-in keeps them. */
export function functionDefinitions(manifestFunctions: Record<string, unknown>): FunctionDefinition[] {
  return Object.entries(manifestFunctions).map(([callbackId, raw]) => {
    const f = isObj(raw) ? raw : {};
    const params = (side: unknown): FunctionParameter[] => {
      const props = isObj(side) && isObj(side.properties) ? side.properties : {};
      const required = isObj(side) && Array.isArray(side.required) ? side.required : [];
      return Object.entries(props).map(([name, p]) => {
        const param = isObj(p) ? p : {};
        const type = typeof param.type === 'string' ? param.type : 'string';
        if (!KNOWN_TYPES.has(type))
          throw new Error(`Slack stand-in: ${callbackId}.${name} has type ${type}, which the stand-in does not model`);
        return {
          name,
          type,
          ...(typeof param.title === 'string' ? { title: param.title } : {}),
          ...(typeof param.description === 'string' ? { description: param.description } : {}),
          is_required: param.is_required === true || required.includes(name),
        };
      });
    };
    return {
      callback_id: callbackId,
      title: typeof f.title === 'string' ? f.title : callbackId,
      ...(typeof f.description === 'string' ? { description: f.description } : {}),
      input_parameters: params(f.input_parameters),
      output_parameters: params(f.output_parameters),
    };
  });
}
