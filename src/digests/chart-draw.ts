/**
 * Draws the digest's chart as a PNG with Chart.js on a Skia canvas (`@napi-rs/canvas`, whose native part ships
 * prebuilt in its npm packages): no browser, no network. Text uses the Inter font shipped in `assets/fonts/`
 * (`scripts/generate-assets.ts`), registered by file, so it renders the same in a slim container image that has no fonts. Runs in the chart's
 * worker thread (`chart-worker.ts`), never on the bot's event loop. 800×400, drawn at 2× for sharp text on
 * high-density screens.
 */
import { fileURLToPath } from 'node:url';
import type * as CanvasLib from '@napi-rs/canvas';
import type { Chart as ChartJs, ChartConfiguration } from 'chart.js';
import type { ChartInput } from './chart-data.js';

const WIDTH = 800;
const TOP_HEIGHT = 250;
const BOTTOM_HEIGHT = 150;
const SCALE = 2;
const FONT = 'Inter';
const LABEL_SAMPLE = 32;
/** Points per series at most (the chart is 800 points wide). */
const MAX_POINTS = 400;
const COLORS = { calls: '#4A90D9', rate: '#E8A33D', used: '#7B61FF', allowance: '#9AA0A6', text: '#1D1C1D' };

interface Libs {
  canvas: typeof CanvasLib;
  Chart: typeof ChartJs;
}

let libs: Promise<Libs> | undefined;

/** The libraries and the font, loaded once; a failed load is tried again at the next chart. */
function loadLibs(): Promise<Libs> {
  libs ??= (async () => {
    const [canvas, chartjs] = await Promise.all([import('@napi-rs/canvas'), import('chart.js')]);
    chartjs.Chart.register(...chartjs.registerables);
    // Two levels up from this file, as from its build in dist/: the same folder either way.
    const fonts = ['Inter_400Regular.ttf', 'Inter_600SemiBold.ttf'].map((name) =>
      fileURLToPath(new URL(`../../assets/fonts/${name}`, import.meta.url)),
    );
    for (const file of fonts) {
      // Without our font, text would fall back to whatever the host has: none in a slim image.
      if (!canvas.GlobalFonts.registerFromPath(file, FONT))
        throw new Error(`the chart font could not be loaded: ${file}`);
    }
    chartjs.Chart.defaults.font.family = FONT;
    chartjs.Chart.defaults.color = COLORS.text;
    return { canvas, Chart: chartjs.Chart };
  })().catch((err: unknown) => {
    libs = undefined;
    throw err;
  });
  return libs;
}

/** The chart's PNG bytes. */
export async function drawChart(given: ChartInput): Promise<Buffer> {
  // More bars than the chart has pixels show nothing more, and each costs time: the latest ones only.
  const input = { ...given, days: given.days.slice(-MAX_POINTS), months: given.months.slice(-MAX_POINTS) };
  const { canvas, Chart } = await loadLibs();
  const out = canvas.createCanvas(WIDTH * SCALE, (TOP_HEIGHT + BOTTOM_HEIGHT) * SCALE);
  const ctx = out.getContext('2d');
  // A white card: Slack's dark theme would otherwise show dark text on a dark background.
  ctx.fillStyle = '#FFFFFF';
  ctx.fillRect(0, 0, out.width, out.height);

  const known = input.days.some((d) => d.calls !== null);
  const panels = [
    {
      height: TOP_HEIGHT,
      config: callsConfig(input),
      empty: known ? undefined : 'No daily figures yet: they build up from today on.',
    },
    {
      height: BOTTOM_HEIGHT,
      config: quotaConfig(input),
      empty: input.months.length > 0 ? undefined : 'The platform has no usage quota on record yet.',
    },
  ];
  let y = 0;
  for (const p of panels) {
    const c = canvas.createCanvas(WIDTH, p.height);
    // Chart.js sizes the canvas to its size × devicePixelRatio and draws at once (no animation).
    const chart = new Chart(c.getContext('2d'), {
      ...p.config,
      options: { ...p.config.options, responsive: false, animation: false, devicePixelRatio: SCALE },
    });
    try {
      chart.draw();
      ctx.drawImage(c, 0, y);
      if (p.empty) {
        ctx.font = `${13 * SCALE}px ${FONT}`;
        ctx.fillStyle = '#616061';
        ctx.textAlign = 'center';
        ctx.fillText(p.empty, (WIDTH * SCALE) / 2, y + (p.height * SCALE) / 2);
      }
    } finally {
      chart.destroy(); // clears its canvas: only after it was copied
    }
    y += p.height * SCALE;
  }
  return out.encode('png');
}

type Config = ChartConfiguration<'bar' | 'line'>;

/** Legend entries in the datasets' order (Chart.js lists them by drawing order otherwise). */
function byDataset(a: { datasetIndex?: number }, b: { datasetIndex?: number }): number {
  return (a.datasetIndex ?? 0) - (b.datasetIndex ?? 0);
}

function callsConfig(input: ChartInput): Config {
  return {
    type: 'bar',
    data: {
      labels: input.days.map((d) => d.label),
      datasets: [
        {
          type: 'bar',
          label: 'Calls',
          data: input.days.map((d) => d.calls),
          yAxisID: 'calls',
          backgroundColor: COLORS.calls,
          order: 1,
        },
        {
          type: 'line',
          label: 'Connected',
          data: input.days.map((d) => (d.rate === null ? null : Math.round(d.rate * 1000) / 10)),
          yAxisID: 'rate',
          borderColor: COLORS.rate,
          backgroundColor: COLORS.rate,
          spanGaps: false,
          // Past a few dozen days the dots are a smear, and each one is drawn.
          pointRadius: input.days.length > 60 ? 0 : 3,
          order: 0,
        },
      ],
    },
    options: {
      plugins: {
        title: {
          display: true,
          text: `Calls and connected share per day · last ${input.days.length} days (${input.timeZone})`,
          font: { weight: 600, size: 14 },
        },
        legend: { position: 'bottom', labels: { sort: byDataset } },
      },
      scales: {
        // Labels are measured from a sample, not all of them: thousands of days would take seconds otherwise.
        x: { ticks: { sampleSize: LABEL_SAMPLE } },
        calls: {
          position: 'left',
          beginAtZero: true,
          grace: '10%',
          ticks: { precision: 0 },
          title: { display: true, text: 'calls' },
        },
        rate: {
          position: 'right',
          min: 0,
          max: 100,
          ticks: { callback: (v: number | string) => `${v}%` },
          grid: { drawOnChartArea: false },
        },
      },
    },
  };
}

function quotaConfig(input: ChartInput): Config {
  const allowance = input.months.some((m) => m.allowanceHours !== null);
  return {
    type: 'bar',
    data: {
      labels: input.months.map((m) => m.label),
      datasets: [
        {
          type: 'bar',
          label: 'Used',
          data: input.months.map((m) => m.usedHours),
          yAxisID: 'y',
          backgroundColor: COLORS.used,
          order: 1,
        },
        ...(allowance
          ? [
              {
                type: 'line' as const,
                label: 'Allowance',
                data: input.months.map((m) => m.allowanceHours),
                borderColor: COLORS.allowance,
                backgroundColor: COLORS.allowance,
                borderDash: [6, 4],
                yAxisID: 'y',
                pointRadius: 2,
                order: 0,
              },
            ]
          : []),
      ],
    },
    options: {
      plugins: {
        title: { display: true, text: 'Quota used per month (hours)', font: { weight: 600, size: 14 } },
        legend: { position: 'right', labels: { sort: byDataset } },
      },
      scales: { y: { beginAtZero: true, grace: '10%', ticks: { precision: 0 } } },
    },
  };
}
