/**
 * The eras are described in one place, packages/ledger/src/era.ts's `ERA_TABLE`: it has an entry
 * for each era of `ERAS`, what is derived from it agrees with it, and no product code elsewhere
 * compares an era with a number (it looks the era up instead, or names the era it means, as the
 * devnet's switch from ledger 8 to 9 does).
 */
import t from 'tap';
import ts from 'typescript';
import {
  DEFAULT_ERA,
  DEVNET_PROTOCOL_VERSION,
  ERAS,
  ERA_TABLE,
  LEDGER_PACKAGES,
  eraOfBytes,
  eraOfProtocolVersion,
  isEra,
  type Era,
} from '../../../packages/ledger/src/era.js';
import { readSources, type Sources } from '../../helpers/layout-rule.js';
import { ROOT } from '../../helpers/spawn.js';

const TABLE_FILE = 'packages/ledger/src/era.ts';
const PRODUCT_DIRS = ['src', 'workers', 'native', 'packages'];

/** Where `file` compares an era with a number literal: `era === 9`, `8 !== kit.era`, `switch (era) { case 8: }`. */
function eraLiteralComparisons(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const namesEra = (e: ts.Expression): boolean => {
    while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e)) e = e.expression;
    const name = ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : '';
    return /era$/i.test(name);
  };
  const at = (n: ts.Node): string => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${n.getText(sf)}`;
  const visit = (n: ts.Node): void => {
    if (
      ts.isBinaryExpression(n) &&
      [
        ts.SyntaxKind.EqualsEqualsEqualsToken,
        ts.SyntaxKind.ExclamationEqualsEqualsToken,
        ts.SyntaxKind.EqualsEqualsToken,
        ts.SyntaxKind.ExclamationEqualsToken,
      ].includes(n.operatorToken.kind)
    ) {
      if ((ts.isNumericLiteral(n.right) && namesEra(n.left)) || (ts.isNumericLiteral(n.left) && namesEra(n.right))) found.push(at(n));
    } else if (ts.isSwitchStatement(n) && namesEra(n.expression) && n.caseBlock.clauses.some((c) => ts.isCaseClause(c) && ts.isNumericLiteral(c.expression))) {
      found.push(at(n.expression));
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

function comparisonsIn(sources: Sources): string[] {
  return [...sources].filter(([file]) => file !== TABLE_FILE).flatMap(([file, text]) => eraLiteralComparisons(file, text));
}

t.test('the table has one entry for each era of the era list, and nothing else', async (t) => {
  t.strictSame(Object.keys(ERA_TABLE).map(Number).sort(), [...ERAS].sort());
  t.ok(ERAS.includes(DEFAULT_ERA), `the default era ${DEFAULT_ERA} is one of them`);
  for (const era of ERAS) {
    const entry = ERA_TABLE[era];
    for (const call of ['signOffer', 'signatureOfEntry', 'registrationSignature', 'provingProvider'] as const)
      t.type(entry[call], 'function', `ledger ${era}: ${call}`);
    t.match(entry.package, { name: String, version: String, prerelease: Boolean }, `ledger ${era}: its package`);
    t.ok(entry.tags.length > 0 && entry.tags.every((tag) => tag.startsWith('midnight:')), `ledger ${era}: its header tags`);
  }
});

t.test('what is derived from the table agrees with it', async (t) => {
  const tags = ERAS.flatMap((era) => ERA_TABLE[era].tags);
  t.equal(new Set(tags).size, tags.length, 'no header tag names two eras');
  for (const era of ERAS) {
    const { firstProtocolVersion, devnetProtocolVersion, package: pkg, tags: own } = ERA_TABLE[era];
    t.ok(isEra(era));
    t.equal(DEVNET_PROTOCOL_VERSION[era], devnetProtocolVersion);
    t.equal(LEDGER_PACKAGES[era], pkg);
    t.equal(eraOfProtocolVersion(firstProtocolVersion), era, `ledger ${era} from protocol version ${firstProtocolVersion}`);
    t.equal(eraOfProtocolVersion(devnetProtocolVersion), era, `the devnet's ledger ${era} version reads as ledger ${era}`);
    for (const tag of own) t.equal(eraOfBytes(new TextEncoder().encode(`${tag}(signature[v1],proof,pedersen-schnorr[v1]):`)), era, tag);
  }
  const later = ERAS.slice(1) as Era[];
  for (const [i, era] of later.entries()) {
    const previous = ERAS[i]!;
    t.ok(ERA_TABLE[era].firstProtocolVersion > ERA_TABLE[previous].firstProtocolVersion, `ledger ${era} starts after ledger ${previous}`);
    t.equal(eraOfProtocolVersion(ERA_TABLE[era].firstProtocolVersion - 1), previous, `the version before ledger ${era}'s is ledger ${previous}'s`);
  }
  t.notOk(isEra(Math.max(...ERAS) + 1), 'a number past the last era is none');
  t.notOk(isEra(String(DEFAULT_ERA)), 'an era is a number');
});

t.test("no product code compares an era with a number outside the table's file", async (t) => {
  const sources = readSources(ROOT, PRODUCT_DIRS);
  t.ok(
    [...sources.keys()].some((f) => f.startsWith('packages/devnet/src/')),
    `${sources.size} files read`,
  );
  t.strictSame(comparisonsIn(sources), []);
});

t.test('the check finds each kind of comparison, and leaves named eras and the table alone', async (t) => {
  const planted = new Map<string, string>([
    ['src/planted.ts', 'declare const era: number;\nif (era === 8) {}\n'],
    ['workers/planted.ts', 'declare const kit: { era: number };\nconst nine = 9 !== kit.era;\n'],
    ['packages/devnet/src/planted.ts', 'declare const n: { ledgerEra: number };\nswitch (n.ledgerEra) { case 9: break; }\n'],
    ['packages/devnet/src/named.ts', 'declare const era: number; declare const SWITCH_TO: number;\nconst switched = era === SWITCH_TO;\n'],
    ['packages/devnet/src/other.ts', 'declare const height: number;\nconst first = height === 8;\n'],
    [TABLE_FILE, 'declare const era: number;\nconst eight = era === 8;\n'],
  ]);
  t.strictSame(comparisonsIn(planted), ['src/planted.ts:2: era === 8', 'workers/planted.ts:2: 9 !== kit.era', 'packages/devnet/src/planted.ts:2: n.ledgerEra']);
});
