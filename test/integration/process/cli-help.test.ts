/**
 * `nightgate <command> --help` prints that command's usage and exits 0, doing nothing else: no
 * server started, no key minted, no config file written, nothing submitted. `keys create` refuses
 * ids nightgate uses itself.
 */
import t from 'tap';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, NO_DEVNET_ENV } from '../../helpers/spawn.js';

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  const p = runCli(args, { ...NO_DEVNET_ENV, NIGHTGATE_PORT: '0', ...env });
  const { code } = await p.exited;
  return { code, out: p.out.join('\n') };
}

t.test('every command answers --help with its usage, exit 0, and no side effect', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ng-help-'));
  const config = join(dir, 'c.json');
  const text = JSON.stringify({ auth: { keys: [{ id: 'a', sha256: 'a'.repeat(64) }] } });
  writeFileSync(config, text);
  const cases: Array<[string[], RegExp]> = [
    [['--help'], /usage: nightgate \[serve\][^]*keys create[^]*submit[^]*wallet address[^]*wallet register[^]*example-tx/],
    [['serve', '--help'], /^usage: nightgate \[serve\]/],
    [['serve', '-h'], /^usage: nightgate \[serve\]/],
    [['keys', 'create', '--help'], /^usage: nightgate keys create/],
    [['keys', 'create', '--id', 'x', '--help'], /^usage: nightgate keys create/],
    [['keys', 'list', '--help', '--config', config], /^usage: nightgate keys list/],
    [['keys', 'revoke', 'a', '--config', config, '--help'], /^usage: nightgate keys revoke/],
    [['config-doc', '--help'], /^usage: nightgate config-doc/],
    [['example-tx', '--help'], /^usage: nightgate example-tx/],
    [['submit', '--help'], /^usage: nightgate submit/],
    [['submit', '--network', 'preview', '--url', '127.0.0.1:9', '-h'], /^usage: nightgate submit/],
    [['wallet', 'address', '--help'], /^usage: nightgate wallet address/],
    [['wallet', 'status', '--network', 'preview', '--url', '127.0.0.1:9', '--help'], /^usage: nightgate wallet status/],
    [['wallet', 'register', '--network', 'preview', '--url', '127.0.0.1:9', '--help'], /^usage: nightgate wallet register/],
    [['wallet', 'fund', '--network', 'preview', '--url', '127.0.0.1:9', '-h'], /^usage: nightgate wallet fund/],
  ];
  await Promise.all(
    cases.map(async ([args, usage]) => {
      const r = await cli(args);
      t.equal(r.code, 0, `${args.join(' ')}: exit 0`);
      t.match(r.out, usage, `${args.join(' ')}: its usage`);
      t.notMatch(
        r.out,
        /listening|API key \(shown once|ngk_|key "a" revoked|nightgate submit:|nightgate wallet \w+: |mn_addr_|NIGHT on its way/,
        `${args.join(' ')}: nothing started, minted, written, derived or submitted`,
      );
    }),
  );
  t.equal(readFileSync(config, 'utf8'), text, 'the config file untouched');
});

t.test('keys create refuses an id nightgate uses itself, or one no config would accept', async (t) => {
  for (const id of ['nightgate-pool', 'env-1', 'dev-generated', 'has space']) {
    const r = await cli(['keys', 'create', '--id', id]);
    t.equal(r.code, 2, `${id}: exit 2`);
    t.match(r.out, new RegExp(`nightgate keys create: key id "${id}" `), id);
    t.notMatch(r.out, /ngk_/, `${id}: no key minted`);
  }
  const ok = await cli(['keys', 'create', '--id', 'wallet-1']);
  t.equal(ok.code, 0);
  t.match(ok.out, /"id":"wallet-1"/);
});

t.test("wallet address prints what Midnight's HD wallet derives from the mnemonic", async (t) => {
  const env = {
    NIGHTGATE_DUST_WALLET_MNEMONIC: `${'abandon '.repeat(23)}art`,
    NIGHTGATE_PREVIEW_INDEXER: 'public',
    NIGHTGATE_PROVER_URL: 'http://127.0.0.1:9',
  };
  const r = await cli(['wallet', 'address', '--network', 'preview'], env);
  t.equal(r.code, 0, r.out);
  const lines = r.out.trim().split('\n');
  t.equal(lines.length, 2, 'dust.walletCount wallets');
  t.match(lines[0], /^0 {2}mn_addr_preview19kxg8sxrsty37elmm6yd68tuy7prryjst2r48eapf2fdtd8z4gpq8xczf2 {2}mn_dust_preview1[02-9ac-hj-np-z]+$/);
  t.match(lines[1], /^1 {2}mn_addr_preview1[02-9ac-hj-np-z]+ {2}mn_dust_preview1/);
  t.notMatch(r.out, /abandon/, 'the mnemonic is not echoed');
  const none = await cli(['wallet', 'address', '--network', 'mainnet'], {
    NIGHTGATE_MAINNET_INDEXER: 'public',
    NIGHTGATE_MAINNET_PROJECT_ID: 'x',
    NIGHTGATE_PROVER_URL: 'http://127.0.0.1:9',
  });
  t.equal(none.code, 1);
  t.match(none.out, /nightgate wallet address: no server wallets are configured: set NIGHTGATE_DUST_WALLET_MNEMONIC/);
  const bad = await cli(['wallet', 'address', '--network', 'preview'], { ...env, NIGHTGATE_DUST_WALLET_MNEMONIC: `${'abandon '.repeat(23)}abandon` });
  t.equal(bad.code, 1);
  t.match(bad.out, /dust\.walletMnemonic \(NIGHTGATE_DUST_WALLET_MNEMONIC\): the mnemonic is not valid BIP-39/);
  t.notMatch(bad.out, /abandon/);
  const usage = await cli(['wallet', 'adress', '--network', 'preview']);
  t.equal(usage.code, 2);
  t.match(usage.out, /nightgate wallet: a subcommand: address, status, register, fund/);
});
