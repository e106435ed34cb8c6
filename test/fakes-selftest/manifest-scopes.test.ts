/**
 * The fake's default bot scopes are the ones /manifest.yml requests, so a Web API call that the real app
 * would not be allowed to make fails in tests too (missing_scope). Keep them in sync.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MANIFEST_BOT_SCOPES } from '../fakes/slack.js';

function manifestBotScopes(): string[] {
  const yml = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
  const section = /\n {4}bot:\n((?: {6}- .*\n)+)/.exec(yml)?.[1] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {6}- ([\w:.]+)/.exec(line)?.[1])
    .filter((s): s is string => s !== undefined);
}

describe('fake Slack scopes', () => {
  it('match the bot scopes in manifest.yml', () => {
    const fromManifest = manifestBotScopes();
    expect(fromManifest.length).toBeGreaterThan(0);
    expect([...MANIFEST_BOT_SCOPES].sort()).toEqual([...fromManifest].sort());
  });
});
