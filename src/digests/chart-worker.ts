/**
 * The chart's worker thread (started by `chart.ts` for each chart): draws the figures it is given and posts the
 * PNG back. Whatever the drawing costs — time, memory — is this thread's, which the bot ends past its limits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { drawChart } from './chart-draw.js';
import type { ChartInput } from './chart-data.js';

const png = await drawChart(workerData as ChartInput);
parentPort?.postMessage(png);
