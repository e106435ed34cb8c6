/**
 * What the bot logs when a command fails: an expected platform refusal (400/404/409/422, told to the user
 * as one sentence) is one info line with its code and request id; an unexpected failure stays a warning
 * with the error's stack. Read from the bot's own log lines.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, MEMBER_ID, startHarness, useHarness } from '../support/harness.js';

const h = useHarness(() => startHarness(), ['platform']);

type LogLine = Record<string, unknown> & { level: string; msg: string };

let seq = 0;
/** Runs `/campaign <text>`, waits for the answer, and returns the log lines written for that command. */
async function runAndLog(text: string, userId = MEMBER_ID): Promise<{ answer: string; lines: LogLine[] }> {
  const id = `log-${++seq}`;
  const before = h.logs().length;
  await h.signer.command({ text, userId, responseUrlId: id });
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
  // The failure line is written before the answer is posted.
  const lines = h
    .logs()
    .slice(before)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine);
  return { answer: JSON.stringify(answer.body), lines };
}

const failureLines = (lines: LogLine[]) => lines.filter((l) => l.msg.startsWith('command failed'));

describe('logs of failed commands', () => {
  it('a 404 mapped to a sentence is one info line with code and request id, no stack', async () => {
    const { answer, lines } = await runAndLog('template tpl-missing');
    expect(answer).toContain('Template `tpl-missing` was not found');
    const [line, ...more] = failureLines(lines);
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 'info',
      status: 404,
      code: expect.any(String),
      requestId: expect.stringMatching(/^req_/),
    });
    expect(line).not.toHaveProperty('err');
    expect(JSON.stringify(lines)).not.toContain('"stack"');
    expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  it('a 409 from verify’s Submit for review button likewise', async () => {
    h.platform.state.verification.status = 'processing';
    const before = h.logs().length;
    await h.signer.blockAction({ actionId: 'verification_submit', userId: ADMIN_ID, responseUrlId: 'log-verify' });
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'log-verify'));
    expect(JSON.stringify(answer.body)).toContain('being processed');
    const lines = h
      .logs()
      .slice(before)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);
    expect(lines.filter((l) => l.msg.startsWith('business verification submit failed'))).toEqual([
      expect.objectContaining({ level: 'info', status: 409, requestId: expect.stringMatching(/^req_/) }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
  });

  it('an unexpected 500 stays a warning with the error and its stack', async () => {
    h.platform.inject({ path: '/dashboard/dashboard-stats', status: 500, code: 'INTERNAL', times: 1 });
    const { lines } = await runAndLog('stats');
    const [line] = failureLines(lines);
    expect(line).toMatchObject({ level: 'warn', err: { stack: expect.stringContaining('ServerError') } });
  });
});
