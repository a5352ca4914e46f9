/**
 * What `nightgate <command> --help` prints: one usage text per command. Asking for help is never
 * also a request to act: `serve --help` starts nothing and `keys create --help` mints nothing.
 */
export const USAGE = {
  serve: `usage: nightgate [serve]
  Start the server with the configuration from NIGHTGATE_CONFIG and the environment
  (docs/configuration.md). SIGTERM/SIGINT: graceful shutdown; SIGHUP: reload the API keys.
`,
  'keys create': `usage: nightgate keys create [--id ID] [--name NAME]
  Mint an API key: prints the key once and the record to add to "auth": {"keys": [...]}.
  ID: letters, digits, ".", "_", "-" (at most 64); not one nightgate uses itself
  (nightgate-*, env-<n>, dev-generated). Default: key-<first 8 hex of its SHA-256>.
`,
  'keys list': `usage: nightgate keys list [--config PATH] [--json]
  The config file's keys (--config, else NIGHTGATE_CONFIG): id, name, state, limits; never the key.
`,
  'keys revoke': `usage: nightgate keys revoke ID [--config PATH]
  Mark the key revoked in the config file; a running server applies it on SIGHUP.
`,
  'config-doc': `usage: nightgate config-doc [--write FILE]
  Print the table of every setting (Markdown), or with --write put it into FILE between its
  <!-- settings:begin --> and <!-- settings:end --> lines (docs/configuration.md).
`,
  submit: `usage: nightgate submit --network NET [--url http://127.0.0.1:8080] [--key KEY] [--timeout S] < answer.json
  Submit a transaction to NET's node (author_submitExtrinsic, as the server submits) and print its
  detail once it is on chain (GET /api/v1/NET/transaction: block height and hash). stdin: the JSON
  answer of /prove-and-balance or /balance-only, or a finalized transaction's bytes. The node is
  the configuration's (networks.NET.nodeRpc, read as the server reads it), or on an embedded
  network the devnet's, which the server at --url names in /health to --key.
  --timeout: seconds to wait in all (default 60).
`,
  'wallet address': `usage: nightgate wallet address --network NET [--json]
  One line per server wallet: its index, its NIGHT address (send NIGHT here) and its DUST address,
  derived from the configured mnemonic (dust.walletMnemonic; docs/going-live.md). Reads nothing
  from the network.
`,
  'wallet status': `usage: nightgate wallet status --network NET [--url http://127.0.0.1:8080] [--key KEY] [--json]
  Each server wallet as the running server sees it (GET /wallet-status): addresses, NIGHT, DUST,
  DUST generation and whether its NIGHT is registered; says what a wallet lacks.
`,
  'wallet register': `usage: nightgate wallet register --network NET [--wallet I] [--url http://127.0.0.1:8080] [--key KEY] [--timeout S]
  Register each wallet's NIGHT key for DUST generation (or wallet I's only): builds, signs and
  submits to NET's node a registration that spends its largest NIGHT UTXO back to itself, its fee
  drawn from the DUST that NIGHT generated since it arrived, and waits until the indexer shows it.
  Its other NIGHT generates once the pool keeper splits it. --timeout: seconds (default 120).
`,
  'wallet fund': `usage: nightgate wallet fund --network NET [--night N] [--url http://127.0.0.1:8080] [--key KEY]
  Embedded devnet only: the devnet's faucet sends N NIGHT (default 10000) to each server wallet.
`,
} as const;

/** `example-tx`'s usage line is kept with its flags in cli.ts. */
type Command = keyof typeof USAGE | 'example-tx';

/** Every command's usage line, for `nightgate --help`. */
export function allUsage(exampleTx: string): string {
  return [...Object.values(USAGE).map((u) => u.split('\n')[0]!), `usage: ${exampleTx}`].join('\n') + "\n  nightgate <command> --help: that command's usage\n";
}

/** The command `argv` names (`keys` takes its subcommand), or undefined when it names none known. */
export function commandOf(argv: readonly string[]): Command | undefined {
  const [cmd, sub] = argv;
  if (cmd === undefined || cmd === 'serve' || cmd.startsWith('-')) return 'serve';
  if (cmd === 'example-tx') return cmd;
  if (cmd === 'keys' || cmd === 'wallet') {
    const c = `${cmd} ${sub ?? ''}`;
    return c in USAGE ? (c as Command) : undefined;
  }
  return cmd in USAGE ? (cmd as Command) : undefined;
}

export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}
