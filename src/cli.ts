#!/usr/bin/env node
/**
 * `nightgate` command:
 *   nightgate [serve]               start the server (same as `npm start`)
 *   nightgate keys create [--id ID] [--name NAME]
 *                                   mint an API key: prints the key once and the config line to add
 *   nightgate keys list [--config PATH] [--json]
 *                                   the config file's keys: id, name, state, limits (never the key)
 *   nightgate keys revoke ID [--config PATH]
 *                                   mark a key revoked in the config file; SIGHUP applies it live
 *   nightgate config-doc [--write FILE]
 *                                   print the configuration table (Markdown), or write it between
 *                                   FILE's settings markers (docs/configuration.md)
 *   nightgate <command> --help      that command's usage, and nothing else (cli-usage.ts)
 *   nightgate example-tx --network NET --kind unproven|proven|finalized|prove-payload [--ledger 8|9] [--url URL]
 *                                   write a sample request body for /prove-and-balance,
 *                                   /balance-only or /prove to stdout (src/cli/example-tx.ts)
 *   nightgate submit --network NET [--url URL] [--key KEY] [--timeout S] < answer.json
 *                                   submit a transaction to NET's node and print it once on
 *                                   chain (src/cli/submit-tx.ts)
 *   nightgate wallet address|status|register|fund --network NET [...]
 *                                   the server wallets: addresses, state, DUST registration,
 *                                   devnet NIGHT (src/cli/wallet.ts)
 */
import { mintKey, sha256Hex } from './core/guards/auth.js';
import { settingsTable } from './core/config/index.js';
import { USAGE, allUsage, commandOf, wantsHelp } from './cli/usage.js';
import { keyIdProblem } from './core/config/key-ids.js';
import { DEFAULT_BASE_URL } from './cli/base-url.js';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** The table between these lines of a Markdown file is the generated one (docs/configuration.md). */
const SETTINGS_MARKERS = /<!-- settings:begin -->\n(?:[\s\S]*?\n)?<!-- settings:end -->/;

/** `config-doc`: the settings table on stdout, or with `--write FILE` into FILE between its markers. */
async function configDoc(args: string[]): Promise<number> {
  if (!args.includes('--write')) {
    process.stdout.write(settingsTable() + '\n');
    return 0;
  }
  const file = flag(args, '--write');
  if (file === undefined || file.startsWith('-')) {
    process.stderr.write(USAGE['config-doc']);
    return 2;
  }
  const { readFileSync, writeFileSync } = await import('node:fs');
  const doc = readFileSync(file, 'utf8');
  if (!SETTINGS_MARKERS.test(doc)) {
    process.stderr.write(`nightgate config-doc: ${file} has no <!-- settings:begin --> and <!-- settings:end --> lines to write between\n`);
    return 1;
  }
  writeFileSync(
    file,
    doc.replace(SETTINGS_MARKERS, () => `<!-- settings:begin -->\n${settingsTable()}\n<!-- settings:end -->`),
  );
  process.stdout.write(`${file}: settings table written\n`);
  return 0;
}

async function run(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  if (wantsHelp(argv)) {
    const command = commandOf(argv);
    const text =
      command === undefined || cmd === '--help' || cmd === '-h'
        ? allUsage(EXAMPLE_USAGE)
        : command === 'example-tx'
          ? `usage: ${EXAMPLE_USAGE}\n`
          : USAGE[command];
    process.stdout.write(text);
    return 0;
  }
  if (cmd === undefined || cmd === 'serve') {
    const { main } = await import('./server.js');
    await main();
    return -1;
  }
  if (cmd === 'keys' && sub === 'create') {
    const given = flag(rest, '--id');
    const problem = given === undefined ? undefined : keyIdProblem(given);
    if (problem !== undefined) {
      process.stderr.write(`nightgate keys create: key id "${given}" ${problem}\n`);
      return 2;
    }
    const key = mintKey();
    const id = given ?? `key-${sha256Hex(key).slice(0, 8)}`;
    const name = flag(rest, '--name');
    const record = { id, sha256: sha256Hex(key), ...(name ? { name } : {}) };
    process.stdout.write(
      `API key (shown once, store it now):\n  ${key}\n\n` +
        `Add this to "auth": {"keys": [...]} in the config file (NIGHTGATE_CONFIG):\n  ${JSON.stringify(record)}` +
        `\n`,
    );
    return 0;
  }
  if (cmd === 'keys' && (sub === 'list' || sub === 'revoke')) {
    const { KeysCliError, configPath, listKeys, revokeKey } = await import('./cli/keys.js');
    try {
      if (sub === 'list') process.stdout.write(listKeys(configPath(rest, process.env), rest.includes('--json')));
      else {
        const id = rest.find((a, i) => !a.startsWith('--') && rest[i - 1] !== '--config');
        if (!id) {
          process.stderr.write('usage: nightgate keys revoke ID [--config PATH]\n');
          return 2;
        }
        process.stdout.write(revokeKey(configPath(rest, process.env), id));
      }
      return 0;
    } catch (err) {
      if (!(err instanceof KeysCliError)) throw err;
      process.stderr.write(`nightgate keys ${sub}: ${err.message}\n`);
      return 1;
    }
  }
  if (cmd === 'config-doc') return configDoc(argv.slice(1));
  if (cmd === 'example-tx') return exampleTx(argv.slice(1));
  if (cmd === 'submit') return submit(argv.slice(1));
  if (cmd === 'wallet') return wallet(sub, rest);
  process.stderr.write(allUsage(EXAMPLE_USAGE));
  return 2;
}

const EXAMPLE_USAGE =
  'nightgate example-tx --network NET --kind unproven|proven|finalized|prove-payload [--ledger 8|9] [--url http://127.0.0.1:8080] > file.bin';

async function exampleTx(args: string[]): Promise<number> {
  const { ExampleTxError, exampleTransaction, isExampleKind, parseLedgerFlag } = await import('./cli/example-tx.js');
  const network = flag(args, '--network');
  const kind = flag(args, '--kind');
  const era = parseLedgerFlag(flag(args, '--ledger'));
  if (!network || !isExampleKind(kind) || era === undefined) {
    process.stderr.write(`usage: ${EXAMPLE_USAGE}\n`);
    return 2;
  }
  if (process.stdout.isTTY) {
    process.stderr.write('nightgate example-tx writes binary: redirect it to a file (> file.bin)\n');
    return 2;
  }
  try {
    const bytes = await exampleTransaction({ url: flag(args, '--url') ?? DEFAULT_BASE_URL, network, kind, era });
    await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (err) => (err ? reject(err) : resolve())));
    return 0;
  } catch (err) {
    if (!(err instanceof ExampleTxError)) throw err;
    process.stderr.write(`nightgate example-tx: ${err.message}\n`);
    return 1;
  }
}

async function submit(args: string[]): Promise<number> {
  const { SubmitTxError, parseSubmitArgs, parseSubmitInput, submitTransaction } = await import('./cli/submit-tx.js');
  const parsed = parseSubmitArgs(args);
  if ('problem' in parsed) {
    process.stderr.write(`nightgate submit: ${parsed.problem}\n${USAGE.submit}`);
    return 2;
  }
  if (process.stdin.isTTY) {
    process.stderr.write('nightgate submit reads the transaction from stdin: redirect the answer of /prove-and-balance to it (< sponsored.json)\n');
    return 2;
  }
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const input = parseSubmitInput(Buffer.concat(chunks));
    const detail = await submitTransaction({ ...parsed, ...input, log: (line) => process.stderr.write(`${line}\n`) });
    process.stdout.write(JSON.stringify(detail, null, 2) + '\n');
    return 0;
  } catch (err) {
    if (!(err instanceof SubmitTxError)) throw err;
    process.stderr.write(`nightgate submit: ${err.message}\n`);
    return 1;
  }
}

async function wallet(sub: string | undefined, args: string[]): Promise<number> {
  const { parseWalletArgs, runWallet } = await import('./cli/wallet.js');
  const { CliError } = await import('./cli/chain-access.js');
  const parsed = parseWalletArgs(sub, args);
  if ('problem' in parsed) {
    process.stderr.write(
      `nightgate wallet: ${parsed.problem}\n` +
        `${(['address', 'status', 'register', 'fund'] as const).map((s) => USAGE[`wallet ${s}`].split('\n')[0]).join('\n')}` +
        `\n`,
    );
    return 2;
  }
  try {
    await runWallet(parsed, { out: (line) => process.stdout.write(`${line}\n`), log: (line) => process.stderr.write(`${line}\n`) });
    return 0;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    process.stderr.write(`nightgate wallet ${sub}: ${err.message}\n`);
    return 1;
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`nightgate: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
