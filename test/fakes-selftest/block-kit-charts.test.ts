/**
 * The stand-in refuses charts and data tables the way Slack does: each limit passes at the limit and is refused
 * one over, naming the field. Limits:
 * - https://docs.slack.dev/reference/block-kit/blocks/data-visualization-block
 * - https://docs.slack.dev/reference/block-kit/blocks/data-table-block
 */
import { describe, expect, it } from 'vitest';
import { messageErrors, viewErrors } from '../../fakes/slack/block-kit.js';

const s = (n: number): string => 'x'.repeat(n);
const days = (n: number) => Array.from({ length: n }, (_, i) => `Day ${i + 1}`);
const points = (labels: string[]) => labels.map((label, i) => ({ label, value: i }));
const bar = (extra: Record<string, unknown> = {}, chart: Record<string, unknown> = {}) => ({
  type: 'data_visualization',
  title: 'Calls per day',
  chart: {
    type: 'bar',
    axis_config: { categories: days(3), x_label: 'Day', y_label: 'Calls' },
    series: [{ name: 'Calls', data: points(days(3)) }],
    ...chart,
  },
  ...extra,
});
const pie = (segments: unknown[]) => ({
  type: 'data_visualization',
  title: 'Outcomes',
  chart: { type: 'pie', segments },
});
const cell = (text: string) => ({ type: 'raw_text', text });
const num = (value: number) => ({ type: 'raw_number', value, text: String(value) });
const table = (rows: unknown[][], extra: Record<string, unknown> = {}) => ({
  type: 'data_table',
  caption: 'Top campaigns',
  rows,
  ...extra,
});
const rowsOf = (n: number) => [
  [cell('Campaign'), cell('Calls')],
  ...Array.from({ length: n }, (_, i) => [cell(`c${i}`), num(i)]),
];

const inMessage = (...blocks: unknown[]): string[] => messageErrors({ text: 'fallback', blocks });

type LimitCase = [string, number, (n: number) => string[], string];
const cases: LimitCase[] = [
  ['chart title', 50, (n) => inMessage(bar({ title: s(n) })), '/blocks/0/title'],
  [
    'series in a bar chart',
    6,
    (n) =>
      inMessage(bar({}, { series: Array.from({ length: n }, (_, i) => ({ name: `S${i}`, data: points(days(1)) })) })),
    '/blocks/0/chart/series',
  ],
  [
    'points in a series',
    20,
    (n) =>
      inMessage(bar({}, { axis_config: { categories: days(n) }, series: [{ name: 'Calls', data: points(days(n)) }] })),
    '/blocks/0/chart/series/0/data',
  ],
  [
    'segments in a pie',
    6,
    (n) => inMessage(pie(Array.from({ length: n }, (_, i) => ({ label: `L${i}`, value: 1 })))),
    '/blocks/0/chart/segments',
  ],
  ['segment label', 20, (n) => inMessage(pie([{ label: s(n), value: 1 }])), '/blocks/0/chart/segments/0/label'],
  [
    'axis label',
    50,
    (n) => inMessage(bar({}, { axis_config: { categories: days(3), y_label: s(n) } })),
    '/blocks/0/chart/axis_config/y_label',
  ],
  ['charts in a message', 2, (n) => inMessage(...Array.from({ length: n }, () => bar())), '/blocks'],
  ['data table rows', 101, (n) => inMessage(table(rowsOf(n - 1))), '/blocks/0/rows'],
  ['data table page size', 100, (n) => inMessage(table(rowsOf(1), { page_size: n })), '/blocks/0/page_size'],
];

describe.each(cases)('%s (limit %i)', (_what, limit, errorsFor, pointer) => {
  it('passes at the limit', () => {
    expect(errorsFor(limit)).toEqual([]);
  });

  it('is refused one over, naming the field', () => {
    const errors = errorsFor(limit + 1);
    expect(errors).toEqual([expect.stringMatching(/^\[ERROR\] .+ \[json-pointer:.+\]$/)]);
    expect(errors[0]).toContain(`[json-pointer:${pointer}]`);
  });
});

describe('what a chart must hold', () => {
  it('refuses a point whose label is not one of the axis categories', () => {
    const errors = inMessage(bar({}, { series: [{ name: 'Calls', data: [{ label: 'Someday', value: 1 }] }] }));
    expect(errors).toEqual([expect.stringContaining('[json-pointer:/blocks/0/chart/series/0/data/0/label]')]);
  });

  it('accepts a series with a gap: fewer points than categories', () => {
    expect(inMessage(bar({}, { series: [{ name: 'Calls', data: points(['Day 1', 'Day 3']) }] }))).toEqual([]);
  });

  it('refuses a value that is not a finite number, and a pie segment of 0', () => {
    const errors = inMessage(
      bar({}, { series: [{ name: 'Calls', data: [{ label: 'Day 1', value: null }] }] }),
      pie([{ label: 'None', value: 0 }]),
    );
    expect(errors).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/chart/series/0/data/0/value]'),
      expect.stringContaining('[json-pointer:/blocks/1/chart/segments/0/value]'),
    ]);
  });

  it('refuses two series of one name and an unknown chart type', () => {
    const twice = { name: 'Calls', data: points(days(1)) };
    expect(inMessage(bar({}, { series: [twice, twice] }))).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/chart/series/1/name]'),
    ]);
    expect(inMessage(bar({}, { type: 'radar' }))).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/chart/type]'),
    ]);
  });

  it('checks charts in views too', () => {
    const view = { type: 'home', blocks: [bar({ title: s(51) })] };
    expect(viewErrors(view, 'home')).toEqual([expect.stringContaining('[json-pointer:/view/blocks/0/title]')]);
  });
});

describe('what a data table must hold', () => {
  it('refuses a row shorter than the header, rich_text in the header, and a missing caption', () => {
    const rich = { type: 'rich_text', elements: [] };
    expect(inMessage(table([[cell('A'), cell('B')], [cell('a')]]))).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/rows/1]'),
    ]);
    expect(inMessage(table([[rich], [cell('a')]]))).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/rows/0/0/type]'),
    ]);
    expect(inMessage({ type: 'data_table', rows: rowsOf(1) })).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/caption]'),
    ]);
  });

  it('refuses a header alone and a row header outside the columns', () => {
    expect(inMessage(table(rowsOf(0)))).toEqual([expect.stringContaining('[json-pointer:/blocks/0/rows]')]);
    expect(inMessage(table(rowsOf(1), { row_header_column_index: 2 }))).toEqual([
      expect.stringContaining('[json-pointer:/blocks/0/row_header_column_index]'),
    ]);
  });
});
