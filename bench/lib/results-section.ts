/**
 * bench/RESULTS.md holds the newest full run of `npm run bench` and, in a block of its own, the
 * newest sustained-sponsorship run (`npm run bench:sustained`); a hand-written notes block under
 * the title (runs of `--only`/`--wrk-only`, before/after a default changed) is kept as it is. Each writer replaces only its
 * part: the full run keeps the sustained block, a sustained run replaces only that block.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const BEGIN = '<!-- sustained:begin -->';
const END = '<!-- sustained:end -->';
const NOTES_BEGIN = '<!-- notes:begin -->';
const NOTES_END = '<!-- notes:end -->';

/** The text from `begin` to `end` in a report, markers included ('' if either is missing). */
function markedBlock(report: string, begin: string, end: string): string {
  const start = report.indexOf(begin);
  const stop = report.indexOf(end);
  return start >= 0 && stop > start ? report.slice(start, stop + end.length) : '';
}

/** The sustained block of an existing report, markers included ('' if none). */
export function sustainedBlock(report: string): string {
  return markedBlock(report, BEGIN, END);
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

/** Puts a sustained run's section into the report, replacing the previous one or appending it. */
export function writeSustainedSection(path: string, section: string): void {
  const block = `${BEGIN}\n${section.trim()}\n${END}`;
  const report = existsSync(path) ? readFileSync(path, 'utf8') : '# nightgate benchmark results\n';
  const old = sustainedBlock(report);
  writeFileSync(path, old ? report.replace(old, block) : `${report.trimEnd()}\n\n${block}\n`);
}
