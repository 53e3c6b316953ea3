// The usual shape of a benchmark: measure a baseline and Plinth one after the other, print the ratio.
import { loadSettings, measure } from './load.mjs';
import { printComparison, printEnvironment, recordResult } from './report.mjs';

/**
 * name: short id (the benchmark file name), title: the line above the table.
 * baseline / subject: autocannon targets ({ url, method, headers, body, requests }).
 * Both servers must already be running in their own processes; they are measured sequentially so
 * neither steals CPU from the other while it is under load.
 */
export async function compare({ name, title, baseline, subject, settings = loadSettings(), baselineLabel, subjectLabel }) {
  printEnvironment(settings);
  console.log(`measuring ${baselineLabel ?? 'baseline'}: ${baseline.method ?? 'GET'} ${baseline.url}`);
  const baselineResult = await measure(baseline, settings);
  console.log(`measuring ${subjectLabel ?? 'plinth'}: ${subject.method ?? 'GET'} ${subject.url}`);
  const subjectResult = await measure(subject, settings);
  printComparison({ title, baseline: baselineResult, subject: subjectResult, baselineLabel, subjectLabel });
  recordResult(name, { title, settings, baseline: baselineResult, subject: subjectResult });
  return { baseline: baselineResult, subject: subjectResult };
}
