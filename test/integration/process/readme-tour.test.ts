/**
 * README's "A short tour" runs as written: `npm start` with the embedded default (built only if
 * stale), then the tour's shell block through bash, unchanged except for what a reader fills in
 * by hand: the port (the server listens on a free one) and the development key it printed.
 * The tour ends with `nightgate submit`: the sponsored transaction lands in a devnet block (one
 * every 6 s) within the bash timeout. Then the `curl` lines of the /docs page, the same way.
 * `bash -e -o pipefail`: a command that fails fails the test (jq reading an error page,
 * example-tx finding no server, the devnet refusing the transaction).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { request } from 'undici';
import { ROOT, runProcess } from '../../helpers/spawn.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The first `sh` block after the heading. */
function shellBlock(markdown: string, heading: string): string {
  const at = markdown.indexOf(`\n${heading}\n`);
  const block = at < 0 ? undefined : /```sh\n([\s\S]*?)```/.exec(markdown.slice(at))?.[1];
  if (!block) throw new Error(`README has no sh block under ${heading}`);
  return block;
}

/** The default configuration, as a reader's shell has it: no NIGHTGATE_* setting but the port. */
function readerEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NIGHTGATE_')));
  return { ...env, NIGHTGATE_PORT: '0' };
}

function bash(script: string, cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env: readerEnv(), encoding: 'utf8', timeout: 90_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Utxo {
  owner: string;
  intentHash: string;
  outputIndex: number;
  spent?: boolean;
}

/** What `nightgate submit` prints: the transaction route's detail. */
interface OnChain {
  hash?: string;
  block?: { height?: number; hash?: string };
  utxos?: { spent: Utxo[] };
}

const unescapeHtml = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

t.test('the README tour and the /docs curl lines run as written against `npm start`', async (t) => {
  const tour = shellBlock(README, '## A short tour');
  t.match(tour, /^export KEY=ngk_\.\.\. /m, 'the tour starts from the printed key');

  const server = runProcess('npm', ['start'], readerEnv(), { detached: true });
  t.teardown(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      process.kill(-server.child.pid!, 'SIGTERM');
      await server.exited;
    }
  });
  const key = /development key \(a new one each start[^)]*\): (ngk_[A-Za-z0-9_-]+)/.exec(await server.waitFor(/development key \(a new one each start/))![1]!;
  const port = Number(/"port":(\d+)/.exec(await server.waitFor(/nightgate listening on/))![1]);
  const base = `http://127.0.0.1:${port}`;

  // A reader starts the tour once the server is up; sponsorship waits for the DUST wallets' sync.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await request(`${base}/wallet-status`, { headers: { 'x-api-key': key } });
    const body = (await r.body.json()) as Record<string, { sync?: { phase?: string } }>;
    if (body['preview']?.sync?.phase === 'synced') break;
    if (Date.now() > deadline) throw new Error(`preview's DUST wallets did not sync: ${JSON.stringify(body['preview'])}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  // A directory inside the repository: npx finds nightgate's own bin from there, as from its root.
  mkdirSync(join(ROOT, '.tap'), { recursive: true });
  const cwd = mkdtempSync(join(ROOT, '.tap', 'readme-tour-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const script = tour.replaceAll('localhost:8080', `127.0.0.1:${port}`).replace('KEY=ngk_...', `KEY=${key}`);
  const started = Date.now();
  const run = bash(script, cwd);
  t.equal(run.status, 0, `the tour exits 0 (in ${Math.round((Date.now() - started) / 1000)} s of the 90 s allowed)`, { stderr: run.stderr });
  t.match(run.stdout, /"status": "ok"/, '/health');
  t.match(run.stdout, /HTTP\/1\.1 304 Not Modified/, 'the ETag line gets its 304');
  const txHash = /"txHash": "([0-9a-f]{64})"/.exec(run.stdout)?.[1];
  t.ok(txHash, '/prove-and-balance answered a sponsored transaction');
  t.notMatch(run.stdout, /UNAUTHORIZED/);
  // The tour's last output: `nightgate submit` prints the transaction route's answer.
  const onChain = JSON.parse(run.stdout.slice(run.stdout.lastIndexOf('\n{\n') + 1)) as OnChain;
  t.equal(onChain.hash, txHash, 'submit found the sponsored transaction on chain');
  t.ok(Number.isInteger(onChain.block?.height) && onChain.block!.height! > 0, `in a block (height ${onChain.block?.height})`);
  t.match(onChain.block?.hash, /^[0-9a-f]{64}$/, 'with its hash');
  const made = readdirSync(cwd).sort();
  t.same(made, ['payload.bin', 'proof.bin', 'sponsored.json', 'unproven-tx.bin'], 'the files the tour writes');
  const ignored = spawnSync('git', ['check-ignore', '--no-index', ...made, 'notes/examples/prover/unproven-tx.bin'], { cwd: ROOT, encoding: 'utf8' });
  t.same(ignored.stdout.split('\n').filter(Boolean), made, 'written at the root, git ignores them; the committed fixtures stay tracked');
  t.equal(readFileSync(join(cwd, 'payload.bin')).subarray(0, 25).toString('latin1'), 'midnight:(proof-preimage-');
  t.equal(readFileSync(join(cwd, 'unproven-tx.bin')).subarray(0, 21).toString('latin1'), 'midnight:transaction[');
  t.equal(readFileSync(join(cwd, 'proof.bin')).subarray(0, 25).toString('latin1'), 'midnight:proof-versioned:', '/prove saved a proof, not an error');

  // /docs: its curl lines, with $KEY exported as the tour did and the files it made.
  const docs = await (await request(`${base}/docs`)).body.text();
  const lines = [...docs.matchAll(/<pre>(curl [^<]*)<\/pre>/g)].map((m) => unescapeHtml(m[1]!).replaceAll('http://127.0.0.1:8080', base));
  t.equal(lines.length, 2, 'the /prove and /prove-and-balance examples');
  rmSync(join(cwd, 'proof.bin'));
  // The tour's transfer is on chain, its input spent: /docs sponsors a new one. example-tx picks an
  // unspent UTXO as the address-activity route lists it, cached up to 6 s at the tip: wait until
  // the route no longer lists the spent input as unspent.
  const input = onChain.utxos?.spent[0];
  if (!input) throw new Error(`the tour's transaction spent nothing: ${JSON.stringify(onChain)}`);
  const activity = `${base}/api/v1/preview/address-activity?identifier=${input.owner}&limit=1`;
  for (const until = Date.now() + 30_000; ; await new Promise((resolve) => setTimeout(resolve, 500))) {
    const { utxos } = (await (await request(activity)).body.json()) as { utxos: Utxo[] };
    if (!utxos.some((u) => !u.spent && u.intentHash === input.intentHash && u.outputIndex === input.outputIndex)) break;
    if (Date.now() > until) throw new Error(`${activity} still lists ${input.intentHash}#${input.outputIndex} as unspent`);
  }
  const docsRun = bash(
    `export KEY=${key}\nnpx nightgate example-tx --url ${base} --network preview --kind unproven > unproven-tx.bin\n${lines.join('\n')}\n`,
    cwd,
  );
  t.equal(docsRun.status, 0, 'the /docs lines exit 0', { stderr: docsRun.stderr });
  t.match(docsRun.stdout, /"txHash":"[0-9a-f]{64}"/, '/prove-and-balance from /docs');
  t.equal(readFileSync(join(cwd, 'proof.bin')).subarray(0, 25).toString('latin1'), 'midnight:proof-versioned:', '/prove from /docs');

  // The kinds the tour does not use, for /balance-only.
  for (const kind of ['proven', 'finalized']) {
    const r = bash(
      `npx nightgate example-tx --url ${base} --network preview --kind ${kind} > ${kind}.bin\n` +
        `curl -s -X POST ${base}/balance-only -H "X-API-Key: ${key}" -H 'Content-Type: application/octet-stream' --data-binary @${kind}.bin\n`,
      cwd,
    );
    t.equal(r.status, 0, `example-tx --kind ${kind}`, { stderr: r.stderr });
    t.match(r.stdout, /"txHash":"[0-9a-f]{64}"/, `/balance-only sponsors the ${kind} example`);
  }
});
