import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUSTAINED_HEADING, eraSection, notesBlock, sustainedBlock, writeFullReport, writeSustainedSection } from '../../../bench/lib/results-section.js';

const NINE_A = '### Ledger 9\n\nrun nine A\n\nRaw figures: `results/nine-a.json`.';
const NINE_B = '### Ledger 9\n\nrun nine B';
const EIGHT = '### Ledger 8\n\nrun eight';

t.test('RESULTS.md: one sustained section under a fixed heading, a subsection per ledger era', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'results-section-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'RESULTS.md');

  writeSustainedSection(path, { era: 9, section: NINE_A, intro: 'How it runs.' });
  t.equal(
    readFileSync(path, 'utf8'),
    '# nightgate benchmark results\n\n' +
      '<!-- sustained:begin -->\n## Sustained sponsorship\n\nHow it runs.\n\n' +
      '<!-- sustained:ledger-9:begin -->\n### Ledger 9\n\nrun nine A\n\nRaw figures: `results/nine-a.json`.\n<!-- sustained:ledger-9:end -->\n\n' +
      '<!-- sustained:ledger-8:begin -->\n### Ledger 8\n\nNo current run is recorded.\n<!-- sustained:ledger-8:end -->\n' +
      '<!-- sustained:end -->\n',
  );

  writeSustainedSection(path, { era: 8, section: EIGHT, intro: 'How it runs.' });
  const both = sustainedBlock(readFileSync(path, 'utf8'));
  t.equal(eraSection(both, 9), NINE_A, 'a ledger-8 run keeps the ledger-9 subsection');
  t.equal(eraSection(both, 8), EIGHT);
  t.equal(both.split('\n')[1], SUSTAINED_HEADING);

  writeSustainedSection(path, { era: 9, section: NINE_B, intro: 'How it runs.' });
  const out = readFileSync(path, 'utf8');
  const block = sustainedBlock(out);
  t.equal(eraSection(block, 9), NINE_B, 'the ledger-9 run replaced its own subsection');
  t.equal(eraSection(block, 8), EIGHT, 'and kept the ledger-8 one');
  t.notMatch(out, /run nine A/);
  t.equal(out.split('## Sustained sponsorship').length, 2, 'one heading');
  t.equal(out.split('sustained:begin').length, 2, 'one block');
  t.ok(out.indexOf('### Ledger 9') < out.indexOf('### Ledger 8'), 'the newest era first');
});

t.test('RESULTS.md: a full run carries the sustained block over unchanged', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'results-full-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'RESULTS.md');
  writeSustainedSection(path, { era: 9, section: NINE_A, intro: 'How it runs.' });
  writeSustainedSection(path, { era: 8, section: EIGHT, intro: 'How it runs.' });
  const before = sustainedBlock(readFileSync(path, 'utf8'));

  writeFullReport(path, '# nightgate benchmark results\n\nfull run A\n');
  const afterFull = readFileSync(path, 'utf8');
  t.match(afterFull, /^# nightgate benchmark results\n\nfull run A\n\n<!-- sustained:begin -->/);
  t.equal(sustainedBlock(afterFull), before);

  writeSustainedSection(path, { era: 9, section: NINE_B, intro: 'How it runs.' });
  t.match(readFileSync(path, 'utf8'), /full run A/, 'a sustained run keeps the full run');

  writeFileSync(path, '# old report without a block\n');
  writeFullReport(path, '# new\n');
  t.equal(readFileSync(path, 'utf8'), '# new\n', 'nothing to carry over');
});

t.test('RESULTS.md: a sustained section whose text holds $ patterns is written as it is', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'results-dollar-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'RESULTS.md');
  writeSustainedSection(path, { era: 9, section: NINE_A, intro: 'How it runs.' });
  writeSustainedSection(path, { era: 9, section: "### Ledger 9\n\ncost $& and $'", intro: 'How it runs.' });
  t.equal(eraSection(sustainedBlock(readFileSync(path, 'utf8')), 9), "### Ledger 9\n\ncost $& and $'");
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
