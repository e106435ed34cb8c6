/**
 * The digest's chart as a PNG, drawn off the event loop: each chart in a worker thread of its own
 * (`chart-worker.ts`) with a time limit and a heap limit, ended past either, so no figure — however absurd —
 * can hold the bot's other work up or take its memory. Charts are drawn one at a time per process.
 *
 * The worker file is next to this one: `.ts` when the bot runs from source under tsx (tests, the playground,
 * `npm run dev`), where the worker registers tsx first; `.js` in `dist/` (`npm start`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChartInput } from './chart-data.js';

export interface ChartLimits {
  /** Past this the worker is ended and the chart fails (the libraries' loading included). */
  timeoutMs: number;
  /** The worker's V8 heap (old generation), MB. */
  maxHeapMb: number;
}

const DEFAULT_LIMITS: ChartLimits = { timeoutMs: 5_000, maxHeapMb: 96 };

let queue: Promise<unknown> = Promise.resolve();

/** The chart's PNG bytes (one render at a time in this process); fails past the limits. */
export function renderChart(input: ChartInput, limits: ChartLimits = DEFAULT_LIMITS): Promise<Buffer> {
  const run = queue.then(() => inWorker(input, limits));
  queue = run.catch(() => undefined);
  return run;
}

function inWorker(input: ChartInput, limits: ChartLimits): Promise<Buffer> {
  const { script, eval: evaluated } = workerScript();
  const worker = new Worker(script, {
    eval: evaluated,
    workerData: input,
    resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: 16 },
  });
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(
      () => settle(() => reject(new Error(`the chart took longer than ${limits.timeoutMs} ms: its worker was ended`))),
      limits.timeoutMs,
    );
    worker.once('message', (png: Uint8Array) => settle(() => resolve(Buffer.from(png))));
    // A throw in the worker, or ERR_WORKER_OUT_OF_MEMORY past its heap limit.
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`the chart worker stopped (${code}) without a chart`))),
    );
  });
}

/**
 * The worker to start: the `.js` file in dist/; from source, a small script that registers tsx's loader in the
 * worker first (in Node 20 a worker's `--import` is not in place before its entry file loads).
 */
function workerScript(): { script: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { script: new URL('./chart-worker.js', import.meta.url), eval: false };
  // What `node --import tsx` loads: it registers tsx's hooks.
  const tsx = pathToFileURL(
    join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  ).href;
  const entry = new URL('./chart-worker.ts', import.meta.url).href;
  return {
    script: `import(${JSON.stringify(tsx)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`,
    eval: true,
  };
}
