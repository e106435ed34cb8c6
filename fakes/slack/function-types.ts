/** The stand-in's workflow steps (functions.ts): what the app declares, and one run of a step. */

/** A workflow step the app declares (manifest `functions:`), as `function_executed` describes it. */
export interface FunctionDefinition {
  callback_id: string;
  title: string;
  description?: string;
  input_parameters: FunctionParameter[];
  output_parameters: FunctionParameter[];
}

export interface FunctionParameter {
  name: string;
  /** `string`, `integer`, `number`, `boolean`, `slack#/types/user_id`… */
  type: string;
  title?: string;
  description?: string;
  is_required?: boolean;
}

/** One run of a workflow step: running until the app calls functions.completeSuccess or completeError. */
export interface FunctionExecution {
  /** `function_execution_id` */
  id: string;
  workflowExecutionId: string;
  callbackId: string;
  teamId: string;
  inputs: Record<string, unknown>;
  /** The run's workflow token (`bot_access_token`), valid for the Web API like the bot token. */
  token: string;
  state: 'running' | 'completed' | 'failed';
  /** What completeSuccess delivered. */
  outputs?: Record<string, unknown>;
  /** The message completeError delivered (Slackbot shows it to the person). */
  error?: string;
}
