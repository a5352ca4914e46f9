/**
 * bench/RESULTS.md holds the newest full run of `npm run bench`; in a block of its own, the newest
 * sustained-sponsorship run (`npm run bench:sustained`) on each ledger era, one subsection per era
 * under one fixed heading; and a hand-written notes block under the title (runs of
 * `--only`/`--wrk-only`, before/after a default changed), kept as it is. Each writer replaces only
 * its part: the full run keeps the sustained block, a sustained run replaces only its era's subsection.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ERAS, type Era } from '../../src/infra/ledger/index.js';

const BEGIN = '<!-- sustained:begin -->';
const END = '<!-- sustained:end -->';
const NOTES_BEGIN = '<!-- notes:begin -->';
const NOTES_END = '<!-- notes:end -->';
const eraBegin = (era: Era): string => `<!-- sustained:ledger-${era}:begin -->`;
const eraEnd = (era: Era): string => `<!-- sustained:ledger-${era}:end -->`;

/** The sustained block's heading, whatever runs it holds: docs link to `bench/RESULTS.md#sustained-sponsorship`. */
export const SUSTAINED_HEADING = '## Sustained sponsorship';

/** The era subsections in the order they appear: the newest era first. */
const ERA_ORDER: readonly Era[] = [...ERAS].sort((a, b) => b - a);

/** The heading of an era's subsection; `?` for a run whose era is unknown. */
export function eraHeading(era: Era | undefined): string {
  return `### Ledger ${era ?? '?'}`;
}

/** The text from `begin` to `end` in a report, markers included ('' if either is missing). */
function markedBlock(report: string, begin: string, end: string): string {
  const start = report.indexOf(begin);
  const stop = report.indexOf(end, start);
  return start >= 0 && stop > start ? report.slice(start, stop + end.length) : '';
}

/** The sustained block of an existing report, markers included ('' if none). */
export function sustainedBlock(report: string): string {
  return markedBlock(report, BEGIN, END);
}

/** An era's subsection in a sustained block, without its markers (undefined if none). */
export function eraSection(block: string, era: Era): string | undefined {
  const marked = markedBlock(block, eraBegin(era), eraEnd(era));
  return marked ? marked.slice(eraBegin(era).length, -eraEnd(era).length).trim() : undefined;
}

/**
 * The hand-written block of an existing report, markers included ('' if none): measurements made
 * outside a full run (what a default costs, before and after a change), dated by their commits.
 */
export function notesBlock(report: string): string {
  return markedBlock(report, NOTES_BEGIN, NOTES_END);
}

/** Writes a full run's report, carrying over the notes (after the title) and the sustained block of the file it replaces. */
export function writeFullReport(path: string, markdown: string): void {
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const kept = sustainedBlock(old);
  const notes = notesBlock(old);
  let out = kept ? `${markdown.trimEnd()}\n\n${kept}\n` : markdown;
  if (notes) {
    const nl = out.indexOf('\n');
    out = nl < 0 ? `${out}\n\n${notes}\n` : `${out.slice(0, nl + 1)}\n${notes}\n${out.slice(nl + 1)}`;
  }
  writeFileSync(path, out);
}

/**
 * Puts a sustained run's subsection (`section`, starting with its eraHeading) into the report's
 * sustained block under its era, keeping the other eras' subsections; an era without one says so.
 * The block is appended when the report has none.
 */
export function writeSustainedSection(path: string, run: { era: Era; section: string; intro: string }): void {
  const report = existsSync(path) ? readFileSync(path, 'utf8') : '# nightgate benchmark results\n';
  const old = sustainedBlock(report);
  const eras = ERA_ORDER.map((era) => {
    const text = era === run.era ? run.section.trim() : (eraSection(old, era) ?? `${eraHeading(era)}\n\nNo current run is recorded.`);
    return `${eraBegin(era)}\n${text}\n${eraEnd(era)}`;
  });
  const block = [BEGIN, SUSTAINED_HEADING, '', run.intro.trim(), '', eras.join('\n\n'), END].join('\n');
  writeFileSync(path, old ? report.replace(old, () => block) : `${report.trimEnd()}\n\n${block}\n`);
}
