/**
 * Typed Block Kit constructors (objects checked against @slack/types, never strings) and Slack's
 * limits in one place, so every renderer truncates the same way.
 */
import type {
  ActionsBlock,
  Button,
  ContextBlock,
  DataTableBlock,
  DividerBlock,
  HeaderBlock,
  KnownBlock as SlackKnownBlock,
  MrkdwnElement,
  PlainTextElement,
  RawNumberElement,
  RawTextElement,
  SectionBlock,
} from '@slack/types';

/** Slack's blocks, with the chart block @slack/types does not know yet. */
export type KnownBlock = SlackKnownBlock | DataVisualizationBlock;

export const LIMITS = {
  blocksPerMessage: 50,
  blocksPerModal: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  buttonText: 75,
  buttonValue: 2000,
  actionsElements: 25,
  /** Fallback `text` of a message: Slack truncates past 40k; keep notifications short. */
  fallbackText: 3000,
  // https://docs.slack.dev/reference/block-kit/blocks/data-visualization-block
  chartTitle: 50,
  chartSeries: 6,
  chartPoints: 20,
  /** A category, a series' name, a point's or a segment's label. */
  chartLabel: 20,
  chartAxisLabel: 50,
  chartsPerMessage: 2,
  // https://docs.slack.dev/reference/block-kit/blocks/data-table-block
  tableRows: 100,
  tableColumns: 20,
} as const;

/** Escapes the three characters Slack's mrkdwn treats as control, so platform text can't inject mentions or links. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * mrkdwn has no escape for its formatting characters, so where one could open or close bold, italic,
 * strike or code it becomes its look-alike; inside a word (`snake_case`, `a*b`) it can't and is kept.
 */
const FORMATTING_LOOKALIKES: Readonly<Record<string, string>> = { '*': '∗', _: 'ˍ', '~': '∼', '`': 'ˋ' };
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** One character of `chars` as literal mrkdwn (see `literal`); `chars` gives its neighbours. */
export function literalChar(chars: readonly string[], i: number): string {
  const ch = chars[i] ?? '';
  const lookalike = FORMATTING_LOOKALIKES[ch];
  if (lookalike === undefined) return escapeMrkdwn(ch);
  const inWord = ch !== '`' && WORD_CHAR.test(chars[i - 1] ?? '') && WORD_CHAR.test(chars[i + 1] ?? '');
  return inWord ? ch : lookalike;
}

/**
 * Platform or customer text shown as written inside our own mrkdwn (a name in bold, a field value):
 * escaped, and unable to open or close formatting around it. Not for ids in code spans — there the
 * characters are already literal and must stay copyable.
 */
export function literal(text: string): string {
  const chars = [...text];
  return chars.map((_, i) => literalChar(chars, i)).join('');
}

/**
 * A link to an https URL the platform gave, as mrkdwn: never an image (Slack would have to download it, and
 * refuses the whole message when it can't). The label is the address without its scheme, shortened; any
 * other text is shown escaped, unlinked.
 */
export function linkTo(raw: string, maxLabel = 80): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return escapeMrkdwn(truncate(raw, maxLabel));
  }
  if (url.protocol !== 'https:') return escapeMrkdwn(truncate(raw, maxLabel));
  // `|` would end the address part of `<url|label>`; `&`, `<`, `>` are Slack's control characters.
  const href = escapeMrkdwn(url.href.replace(/\|/g, '%7C'));
  const label = escapeMrkdwn(truncate(url.href.slice('https://'.length).replace(/\/$/, ''), maxLabel));
  return `<${href}|${label}>`;
}

/** Cuts text to `max` characters, marking the cut with an ellipsis. Counts UTF-16 units like Slack does. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

export function plain(text: string, max: number = LIMITS.sectionText): PlainTextElement {
  return { type: 'plain_text', text: truncate(text, max), emoji: true };
}

/**
 * `verbatim`: Slack then links only our explicit `<…>` markup, never a bare URL, `#channel` or `@here` that
 * platform or customer text happens to contain.
 */
export function mrkdwn(text: string, max: number = LIMITS.sectionText): MrkdwnElement {
  return { type: 'mrkdwn', text: truncate(text, max), verbatim: true };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: plain(text, LIMITS.headerText) };
}

export function section(text: string, extra: Partial<Omit<SectionBlock, 'type' | 'text'>> = {}): SectionBlock {
  return { type: 'section', text: mrkdwn(text), ...extra };
}

/** A section of label/value pairs, two columns; at most 10 fields per section (Slack's rule). */
export function fields(pairs: ReadonlyArray<readonly [label: string, value: string]>): SectionBlock {
  return {
    type: 'section',
    fields: pairs
      .slice(0, LIMITS.sectionFields)
      .map(([label, value]) => mrkdwn(`*${label}*\n${value}`, LIMITS.fieldText)),
  };
}

export function context(...texts: string[]): ContextBlock {
  return { type: 'context', elements: texts.slice(0, LIMITS.contextElements).map((t) => mrkdwn(t, LIMITS.fieldText)) };
}

export function divider(): DividerBlock {
  return { type: 'divider' };
}

export function button(
  text: string,
  actionId: string,
  opts: { value?: string; url?: string; style?: 'primary' | 'danger' } = {},
): Button {
  return {
    type: 'button',
    text: plain(text, LIMITS.buttonText),
    action_id: actionId,
    ...(opts.value !== undefined ? { value: truncate(opts.value, LIMITS.buttonValue) } : {}),
    ...(opts.url ? { url: opts.url } : {}),
    ...(opts.style ? { style: opts.style } : {}),
  };
}

export function actions(elements: Button[], blockId?: string): ActionsBlock {
  return {
    type: 'actions',
    elements: elements.slice(0, LIMITS.actionsElements),
    ...(blockId ? { block_id: blockId } : {}),
  };
}

/**
 * A date Slack renders in the reader's own time zone; `fallback` shows where the client can't.
 * Invalid input is shown as given (escaped) rather than hidden.
 */
export function slackDate(iso: string | undefined, format = '{date_short_pretty} at {time}'): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return escapeMrkdwn(iso);
  const fallback = new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  return `<!date^${Math.floor(ms / 1000)}^${format}|${fallback}>`;
}

/** A message payload: blocks within the per-message limit plus the fallback text notifications use. */
export interface MessagePayload {
  text: string;
  blocks: KnownBlock[];
}

export function message(text: string, blocks: KnownBlock[]): MessagePayload {
  if (blocks.length > LIMITS.blocksPerMessage) {
    // Renderers page before this point; this guard keeps a bug from turning into a rejected post.
    blocks = [...blocks.slice(0, LIMITS.blocksPerMessage - 1), context('_…more items were cut to fit one message._')];
  }
  return { text: truncate(text, LIMITS.fallbackText), blocks };
}

/** A chart Slack draws itself: https://docs.slack.dev/reference/block-kit/blocks/data-visualization-block */
export interface DataVisualizationBlock {
  type: 'data_visualization';
  title: string;
  chart: PieChart | AxisChart;
  block_id?: string;
}

interface Point {
  label: string;
  value: number;
}

interface PieChart {
  type: 'pie';
  segments: Point[];
}

interface AxisChart {
  type: 'bar' | 'line' | 'area';
  axis_config: { categories: string[]; x_label?: string; y_label?: string };
  series: Array<{ name: string; data: Point[] }>;
}

/** A series' figure per category; `null` is a gap (no point drawn), never a zero. */
export interface ChartSeries {
  name: string;
  values: ReadonlyArray<number | null>;
}

/**
 * A bar, line or area chart of `series` over `categories`, within Slack's limits whatever it is given: the
 * last 20 categories, 6 series, labels cut to 20 characters, and only finite figures drawn (anything else is a
 * gap). Undefined when no series has a figure to draw.
 */
export function axisChart(
  type: AxisChart['type'],
  title: string,
  axis: { categories: readonly string[]; xLabel?: string; yLabel?: string },
  series: readonly ChartSeries[],
): DataVisualizationBlock | undefined {
  const from = Math.max(0, axis.categories.length - LIMITS.chartPoints);
  const categories = axis.categories.slice(from).map((c) => truncate(c, LIMITS.chartLabel) || '—');
  const drawn = series.slice(0, LIMITS.chartSeries).flatMap((s) => {
    const data = categories.flatMap((label, i) => {
      const value = s.values[from + i];
      return typeof value === 'number' && Number.isFinite(value) ? [{ label, value }] : [];
    });
    return data.length > 0 ? [{ name: truncate(s.name, LIMITS.chartLabel), data }] : [];
  });
  if (drawn.length === 0 || new Set(categories).size !== categories.length) return undefined;
  const axisConfig: AxisChart['axis_config'] = { categories };
  if (axis.xLabel) axisConfig.x_label = truncate(axis.xLabel, LIMITS.chartAxisLabel);
  if (axis.yLabel) axisConfig.y_label = truncate(axis.yLabel, LIMITS.chartAxisLabel);
  return {
    type: 'data_visualization',
    title: truncate(title, LIMITS.chartTitle),
    chart: { type, axis_config: axisConfig, series: drawn },
  };
}

/** A pie of the segments above zero (at most 6); undefined when none is. */
export function pieChart(title: string, segments: readonly Point[]): DataVisualizationBlock | undefined {
  const drawn = segments
    .filter((s) => Number.isFinite(s.value) && s.value > 0)
    .slice(0, LIMITS.chartSeries)
    .map((s) => ({ label: truncate(s.label, LIMITS.chartLabel) || '—', value: s.value }));
  if (drawn.length === 0) return undefined;
  return {
    type: 'data_visualization',
    title: truncate(title, LIMITS.chartTitle),
    chart: { type: 'pie', segments: drawn },
  };
}

/** A table cell: text as written, or a number people can sort by, shown as `text`. */
export type TableCell = string | { value: number; text: string };

/**
 * A sortable, paged table Slack draws (https://docs.slack.dev/reference/block-kit/blocks/data-table-block):
 * the first column names each row; at most 100 rows and 20 columns; an empty cell shows as `—`.
 */
export function dataTable(
  caption: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly TableCell[]>,
  pageSize = 10,
): DataTableBlock {
  const width = Math.min(columns.length, LIMITS.tableColumns);
  const cell = (c: TableCell | undefined): RawTextElement | RawNumberElement =>
    typeof c === 'object' && Number.isFinite(c.value)
      ? { type: 'raw_number', value: c.value, text: c.text || String(c.value) }
      : { type: 'raw_text', text: (typeof c === 'object' ? c.text : c) || '—' };
  return {
    type: 'data_table',
    caption,
    page_size: Math.min(Math.max(1, pageSize), LIMITS.tableRows),
    rows: [
      columns.slice(0, width).map((c) => cell(c)),
      ...rows.slice(0, LIMITS.tableRows).map((r) => Array.from({ length: width }, (_, i) => cell(r[i]))),
    ],
  };
}
