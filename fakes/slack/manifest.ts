/** The workflow steps an app's manifest declares (`functions:`), read from its manifest.yml. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { functionDefinitions } from './functions.js';
import type { FunctionDefinition } from './function-types.js';

export function manifestFunctions(manifestYml: URL): FunctionDefinition[] {
  const manifest = parse(readFileSync(manifestYml, 'utf8')) as { functions?: Record<string, unknown> };
  return functionDefinitions(manifest.functions ?? {});
}
