/**
 * The blocks Slack draws reports with: `data_visualization` (a line, bar, area or pie chart) and `data_table`
 * (a sortable, paged table), refused the way Slack refuses them.
 *
 * https://docs.slack.dev/reference/block-kit/blocks/data-visualization-block — title ≤ 50 characters; pie: 1–6
 * segments; bar, line, area: 1–6 series and an `axis_config` with the x-axis `categories`. The field-level
 * limits of that page (a series' name, a point's or segment's label, a category ≤ 20 characters; a series'
 * points 1–20, their labels among the categories, series names unique; a segment's value above 0; axis labels
 * ≤ 50; at most two charts in a message) were read from the SDKs that mirror the page, since the search
 * showed only its top tables.
 *
 * https://docs.slack.dev/reference/block-kit/blocks/data-table-block — `caption` required; `rows` 2–101 (the
 * first is the header, which takes no rich_text), every row as long as the header, 1–20 columns; cells
 * raw_text, raw_number (`text` at least 1 character) or rich_text; `page_size` 1–100;
 * `row_header_column_index` one of the columns. The page also caps the characters of all cells together; the
 * figure was cut from what the search showed, so it is not checked here.
 */
import { arrayErrors, err, integerErrors, isObj, stringErrors, type Json } from './block-kit-objects.js';

const CHART_TYPES = new Set(['pie', 'bar', 'line', 'area']);
const MAX_SERIES = 6;
const MAX_POINTS = 20;
const LABEL_MAX = 20;
const TITLE_MAX = 50;
/** Charts a message may hold. */
export const MAX_CHARTS_PER_MESSAGE = 2;

export function dataVisualizationErrors(block: Json, ptr: string): string[] {
  const errors = stringErrors(block.title, `${ptr}/title`, TITLE_MAX, { required: true, min: 1 });
  const chart = block.chart;
  if (!isObj(chart)) return [...errors, err('must provide an object', `${ptr}/chart`)];
  const at = `${ptr}/chart`;
  if (typeof chart.type !== 'string' || !CHART_TYPES.has(chart.type))
    return [...errors, err(`unsupported chart type: ${String(chart.type)}`, `${at}/type`)];
  if (chart.type === 'pie') return [...errors, ...segmentErrors(chart.segments, `${at}/segments`)];
  return [...errors, ...xyErrors(chart, at)];
}

function segmentErrors(segments: unknown, ptr: string): string[] {
  const errors = arrayErrors(segments, ptr, MAX_SERIES, { required: true, min: 1 });
  if (!Array.isArray(segments)) return errors;
  segments.forEach((s, i) => {
    const p = `${ptr}/${i}`;
    if (!isObj(s)) return errors.push(err('must provide an object', p));
    errors.push(...stringErrors(s.label, `${p}/label`, LABEL_MAX, { required: true, min: 1 }));
    if (!isNumber(s.value) || s.value <= 0) errors.push(err('must be a number greater than 0', `${p}/value`));
  });
  return errors;
}

function xyErrors(chart: Json, ptr: string): string[] {
  const errors: string[] = [];
  const axis = chart.axis_config;
  let categories = new Set<string>();
  if (!isObj(axis)) errors.push(err('must provide an object', `${ptr}/axis_config`));
  else {
    const a = `${ptr}/axis_config`;
    errors.push(
      ...arrayErrors(axis.categories, `${a}/categories`, Number.MAX_SAFE_INTEGER, { required: true, min: 1 }),
    );
    if (Array.isArray(axis.categories)) {
      axis.categories.forEach((c, i) =>
        errors.push(...stringErrors(c, `${a}/categories/${i}`, LABEL_MAX, { required: true, min: 1 })),
      );
      categories = new Set(axis.categories.filter((c): c is string => typeof c === 'string'));
    }
    errors.push(...stringErrors(axis.x_label, `${a}/x_label`, TITLE_MAX));
    errors.push(...stringErrors(axis.y_label, `${a}/y_label`, TITLE_MAX));
  }
  const series = chart.series;
  errors.push(...arrayErrors(series, `${ptr}/series`, MAX_SERIES, { required: true, min: 1 }));
  if (!Array.isArray(series)) return errors;
  const names = new Set<string>();
  series.forEach((s, i) => {
    const p = `${ptr}/series/${i}`;
    if (!isObj(s)) return errors.push(err('must provide an object', p));
    errors.push(...stringErrors(s.name, `${p}/name`, LABEL_MAX, { required: true, min: 1 }));
    if (typeof s.name === 'string') {
      if (names.has(s.name)) errors.push(err(`duplicate series name: ${s.name}`, `${p}/name`));
      names.add(s.name);
    }
    errors.push(...arrayErrors(s.data, `${p}/data`, MAX_POINTS, { required: true, min: 1 }));
    if (!Array.isArray(s.data)) return;
    const seen = new Set<string>();
    s.data.forEach((point, j) => {
      const q = `${p}/data/${j}`;
      if (!isObj(point)) return errors.push(err('must provide an object', q));
      errors.push(...stringErrors(point.label, `${q}/label`, LABEL_MAX, { required: true, min: 1 }));
      if (typeof point.label === 'string') {
        if (!categories.has(point.label))
          errors.push(err(`label must be one of axis_config.categories: ${point.label}`, `${q}/label`));
        if (seen.has(point.label)) errors.push(err(`duplicate label: ${point.label}`, `${q}/label`));
        seen.add(point.label);
      }
      if (!isNumber(point.value)) errors.push(err('must be a number', `${q}/value`));
    });
  });
  return errors;
}

/** JSON has no NaN or Infinity: a value that is not a finite number never reaches Slack as one. */
function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

const MAX_ROWS = 101;
const MAX_COLUMNS = 20;
const CELL_TYPES = new Set(['raw_text', 'raw_number', 'rich_text']);

export function dataTableErrors(block: Json, ptr: string): string[] {
  const errors = stringErrors(block.caption, `${ptr}/caption`, Number.MAX_SAFE_INTEGER, { required: true, min: 1 });
  errors.push(...integerErrors(block.page_size, `${ptr}/page_size`, 1, 100));
  const rows = block.rows;
  errors.push(...arrayErrors(rows, `${ptr}/rows`, MAX_ROWS, { required: true, min: 2 }));
  if (!Array.isArray(rows)) return errors;
  const width = Array.isArray(rows[0]) ? rows[0].length : 0;
  errors.push(...integerErrors(block.row_header_column_index, `${ptr}/row_header_column_index`, 0, width - 1));
  rows.forEach((row, i) => {
    const p = `${ptr}/rows/${i}`;
    errors.push(...arrayErrors(row, p, MAX_COLUMNS, { required: true, min: 1 }));
    if (!Array.isArray(row)) return;
    if (row.length !== width) errors.push(err(`must have ${width} cells, as the header row`, p));
    row.forEach((cell, j) => errors.push(...cellErrors(cell, `${p}/${j}`, i === 0)));
  });
  return errors;
}

function cellErrors(cell: unknown, ptr: string, header: boolean): string[] {
  if (!isObj(cell)) return [err('must provide an object', ptr)];
  if (typeof cell.type !== 'string' || !CELL_TYPES.has(cell.type))
    return [err(`unsupported cell type: ${String(cell.type)}`, `${ptr}/type`)];
  if (cell.type === 'rich_text')
    return header
      ? [err('rich_text cannot be used in the header row', `${ptr}/type`)]
      : arrayErrors(cell.elements, `${ptr}/elements`, Number.MAX_SAFE_INTEGER, { required: true });
  const errors = stringErrors(cell.text, `${ptr}/text`, Number.MAX_SAFE_INTEGER, { required: true, min: 1 });
  if (cell.type === 'raw_number' && !isNumber(cell.value)) errors.push(err('must be a number', `${ptr}/value`));
  return errors;
}
