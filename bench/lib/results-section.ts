/**
 * bench/RESULTS.md holds the newest full run of `npm run bench` and, in a block of its own, the
 * newest sustained-sponsorship run (`npm run bench:sustained`). Each writer replaces only its
 * part: the full run keeps the sustained block, a sustained run replaces only that block.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const BEGIN = '<!-- sustained:begin -->';
const END = '<!-- sustained:end -->';

/** The sustained block of an existing report, markers included ('' if none). */
export function sustainedBlock(report: string): string {
  const start = report.indexOf(BEGIN);
  const end = report.indexOf(END);
  return start >= 0 && end > start ? report.slice(start, end + END.length) : '';
}

/** Writes a full run's report, carrying over the sustained block of the file it replaces. */
export function writeFullReport(path: string, markdown: string): void {
  const kept = existsSync(path) ? sustainedBlock(readFileSync(path, 'utf8')) : '';
  writeFileSync(path, kept ? `${markdown.trimEnd()}\n\n${kept}\n` : markdown);
}

/** Puts a sustained run's section into the report, replacing the previous one or appending it. */
export function writeSustainedSection(path: string, section: string): void {
  const block = `${BEGIN}\n${section.trim()}\n${END}`;
  const report = existsSync(path) ? readFileSync(path, 'utf8') : '# nightgate benchmark results\n';
  const old = sustainedBlock(report);
  writeFileSync(path, old ? report.replace(old, block) : `${report.trimEnd()}\n\n${block}\n`);
}
