import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { notesBlock, sustainedBlock, writeFullReport, writeSustainedSection } from '../../../bench/lib/results-section.js';

t.test('RESULTS.md: a full run keeps the sustained block, a sustained run replaces only its block', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'results-section-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'RESULTS.md');

  writeSustainedSection(path, '## Sustained sponsorship\n\nfirst');
  t.match(readFileSync(path, 'utf8'), /^# nightgate benchmark results\n\n<!-- sustained:begin -->\n## Sustained sponsorship\n\nfirst\n<!-- sustained:end -->\n$/);

  writeFullReport(path, '# nightgate benchmark results\n\nfull run A\n');
  const afterFull = readFileSync(path, 'utf8');
  t.match(afterFull, /full run A/);
  t.match(sustainedBlock(afterFull), /first/, 'the full run carried the sustained block over');

  writeSustainedSection(path, '## Sustained sponsorship\n\nsecond');
  const afterSecond = readFileSync(path, 'utf8');
  t.match(afterSecond, /full run A/, 'the full run stays');
  t.notMatch(afterSecond, /first/, 'the old sustained section is gone');
  t.equal(afterSecond.split('sustained:begin').length, 2, 'one block');

  writeFileSync(path, '# old report without a block\n');
  writeFullReport(path, '# new\n');
  t.equal(readFileSync(path, 'utf8'), '# new\n', 'nothing to carry over');
});

t.test('RESULTS.md: a full run keeps the hand-written notes under its title', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'results-notes-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'RESULTS.md');
  writeFileSync(path, '# old\n\n<!-- notes:begin -->\n## What the defaults cost\n\nmeasured\n<!-- notes:end -->\n\nold run\n');
  writeFullReport(path, '# nightgate benchmark results\n\nfull run B\n');
  const out = readFileSync(path, 'utf8');
  t.match(out, /^# nightgate benchmark results\n\n<!-- notes:begin -->\n## What the defaults cost\n\nmeasured\n<!-- notes:end -->\n\nfull run B\n$/);
  t.notMatch(out, /old run/);
  t.equal(notesBlock(out).split('notes:begin').length, 2, 'one block');
});
