/**
 * The blocks Slack draws reports with, as the playground shows them: `data_visualization` as a small SVG chart
 * (grouped bars; lines or filled areas with a break at a gap; a pie) with its title and a legend, and
 * `data_table` as an HTML table with its caption, a header row and numbers aligned right. Like Slack, a point
 * missing from a series is drawn as nothing. Pure functions; every piece of text is escaped on the way out.
 */
import { escapeHtml } from './blockkit-html.js';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Slack's chart colours, one a series or segment (at most six). */
const COLOURS = ['#1264a3', '#e8912d', '#2bac76', '#cd2553', '#7c3085', '#5a6b7b'];
const W = 480;
const H = 200;
const PAD = { left: 44, right: 8, top: 10, bottom: 34 };

export function chartToHtml(block: Json): string {
  const chart = isObj(block.chart) ? block.chart : {};
  const title = `<div class="bk-chart-title">${escapeHtml(text(block.title))}</div>`;
  const body = chart.type === 'pie' ? pie(chart) : axes(chart);
  return `<figure class="bk-chart" data-chart-type="${escapeHtml(text(chart.type))}">${title}${body}</figure>`;
}

interface Series {
  name: string;
  values: Array<number | undefined>;
}

function axes(chart: Json): string {
  const axis = isObj(chart.axis_config) ? chart.axis_config : {};
  const categories = list(axis.categories).map(text);
  const series: Series[] = list(chart.series)
    .filter(isObj)
    .map((s) => {
      const byLabel = new Map(
        list(s.data)
          .filter(isObj)
          .map((p) => [text(p.label), num(p.value)]),
      );
      return { name: text(s.name), values: categories.map((c) => byLabel.get(c)) };
    });
  const all = series.flatMap((s) => s.values).filter((v): v is number => v !== undefined);
  const max = Math.max(1, ...all);
  const min = Math.min(0, ...all);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + plotH - ((v - min) / (max - min)) * plotH;
  const slot = plotW / Math.max(1, categories.length);
  const shapes = chart.type === 'bar' ? bars(series, slot, y, min) : lines(series, slot, y, min, chart.type === 'area');
  const labels = categories
    .map(
      (c, i) =>
        `<text x="${PAD.left + slot * (i + 0.5)}" y="${H - PAD.bottom + 14}" text-anchor="middle" class="bk-chart-axis">${escapeHtml(shortLabel(c))}</text>`,
    )
    .join('');
  const ticks = [min, (min + max) / 2, max]
    .map(
      (v) =>
        `<text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end" class="bk-chart-axis">${escapeHtml(compact(v))}</text>` +
        `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}" class="bk-chart-grid"></line>`,
    )
    .join('');
  const axisTitles =
    (text(axis.x_label)
      ? `<text x="${PAD.left + plotW / 2}" y="${H - 2}" text-anchor="middle" class="bk-chart-axis-title">${escapeHtml(text(axis.x_label))}</text>`
      : '') +
    (text(axis.y_label)
      ? `<text x="10" y="${PAD.top + plotH / 2}" transform="rotate(-90 10 ${PAD.top + plotH / 2})" text-anchor="middle" class="bk-chart-axis-title">${escapeHtml(text(axis.y_label))}</text>`
      : '');
  const svg = `<svg class="bk-chart-svg" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(describe(categories, series))}">${ticks}${shapes}${labels}${axisTitles}</svg>`;
  return svg + legend(series.map((s) => s.name));
}

function bars(series: Series[], slot: number, y: (v: number) => number, min: number): string {
  const width = (slot * 0.8) / Math.max(1, series.length);
  return series
    .flatMap((s, k) =>
      s.values.map((v, i) => {
        if (v === undefined) return '';
        const x = PAD.left + slot * i + slot * 0.1 + width * k;
        const top = Math.min(y(v), y(Math.max(min, 0)));
        const height = Math.abs(y(v) - y(Math.max(min, 0)));
        return `<rect x="${x}" y="${top}" width="${width}" height="${height}" fill="${COLOURS[k % COLOURS.length]}" class="bk-chart-bar"><title>${escapeHtml(`${s.name}: ${v}`)}</title></rect>`;
      }),
    )
    .join('');
}

/** A line per series, broken where a point is missing; `area` fills each run down to the axis. */
function lines(series: Series[], slot: number, y: (v: number) => number, min: number, area: boolean): string {
  return series
    .map((s, k) => {
      const colour = COLOURS[k % COLOURS.length]!;
      const runs: Array<Array<[number, number]>> = [[]];
      s.values.forEach((v, i) => {
        if (v === undefined) runs.push([]);
        else runs.at(-1)!.push([PAD.left + slot * (i + 0.5), y(v)]);
      });
      return runs
        .filter((r) => r.length > 0)
        .map((r) => {
          const pts = r.map(([px, py]) => `${px},${py}`).join(' ');
          const base = y(Math.max(min, 0));
          const fill = area
            ? `<polygon points="${r[0]![0]},${base} ${pts} ${r.at(-1)![0]},${base}" fill="${colour}" fill-opacity="0.3"></polygon>`
            : '';
          const dots = r.map(([px, py]) => `<circle cx="${px}" cy="${py}" r="2.5" fill="${colour}"></circle>`).join('');
          return `${fill}<polyline points="${pts}" fill="none" stroke="${colour}" stroke-width="2"></polyline>${dots}`;
        })
        .join('');
    })
    .join('');
}

function pie(chart: Json): string {
  const segments = list(chart.segments)
    .filter(isObj)
    .map((s) => ({ label: text(s.label), value: num(s.value) ?? 0 }))
    .filter((s) => s.value > 0);
  const total = segments.reduce((sum, s) => sum + s.value, 0);
  const r = 80;
  const [cx, cy] = [100, 100];
  let angle = -Math.PI / 2;
  const slices = segments.map((s, k) => {
    const colour = COLOURS[k % COLOURS.length]!;
    const share = s.value / total;
    if (share >= 1) return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${colour}"></circle>`;
    const end = angle + share * 2 * Math.PI;
    const [x1, y1, x2, y2] = [
      cx + r * Math.cos(angle),
      cy + r * Math.sin(angle),
      cx + r * Math.cos(end),
      cy + r * Math.sin(end),
    ];
    angle = end;
    return `<path d="M${cx},${cy} L${x1},${y1} A${r},${r} 0 ${share > 0.5 ? 1 : 0} 1 ${x2},${y2} Z" fill="${colour}"><title>${escapeHtml(`${s.label}: ${s.value}`)}</title></path>`;
  });
  const label = segments.map((s) => `${s.label}: ${s.value}`).join(', ');
  const svg = `<svg class="bk-chart-svg bk-chart-pie" viewBox="0 0 200 200" role="img" aria-label="${escapeHtml(label)}">${slices.join('')}</svg>`;
  return svg + legend(segments.map((s) => `${s.label} ${s.value} (${Math.round((s.value / total) * 100)}%)`));
}

function legend(names: string[]): string {
  const items = names.map(
    (n, k) =>
      `<span class="bk-chart-key"><svg viewBox="0 0 10 10" class="bk-chart-swatch"><rect width="10" height="10" fill="${COLOURS[k % COLOURS.length]}"></rect></svg>${escapeHtml(n)}</span>`,
  );
  return `<div class="bk-chart-legend">${items.join('')}</div>`;
}

/** What a screen reader hears for the chart: each series' points. */
function describe(categories: string[], series: Series[]): string {
  return series
    .map((s) => `${s.name}: ${categories.map((c, i) => `${c} ${s.values[i] ?? 'no figure'}`).join(', ')}`)
    .join('; ');
}

/** `Fri, Mar 8` → `Mar 8` under a bar: the weekday is in the tooltip and the aria label. */
function shortLabel(label: string): string {
  return label.replace(/^[A-Z][a-z]{2}, /, '');
}

function compact(v: number): string {
  if (Math.abs(v) >= 1000) return `${Math.round(v / 100) / 10}k`;
  return String(Math.abs(v) >= 10 ? Math.round(v) : Math.round(v * 10) / 10);
}

export function dataTableToHtml(block: Json): string {
  const rows = list(block.rows).map((r) => list(r).filter(isObj));
  const [head = [], ...body] = rows;
  const cell = (c: Json, tag: 'th' | 'td') => {
    const numeric = c.type === 'raw_number';
    const content = c.type === 'rich_text' ? '…' : escapeHtml(text(c.text));
    return `<${tag}${numeric ? ' class="bk-table-number"' : ''}>${content}</${tag}>`;
  };
  return (
    `<table class="bk-data-table"><caption>${escapeHtml(text(block.caption))}</caption>` +
    `<thead><tr>${head.map((c) => cell(c, 'th')).join('')}</tr></thead>` +
    `<tbody>${body.map((r) => `<tr>${r.map((c) => cell(c, 'td')).join('')}</tr>`).join('')}</tbody></table>`
  );
}
