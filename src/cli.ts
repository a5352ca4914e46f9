#!/usr/bin/env node
/**
 * `nightgate` command:
 *   nightgate [serve]               start the server (same as `npm start`)
 *   nightgate keys create [--id ID] [--name NAME]
 *                                   mint an API key: prints the key once and the config line to add
 *   nightgate config-doc            print the configuration table (Markdown)
 */
import { mintKey, sha256Hex } from './pipeline/auth.js';
import { settingsTable } from './config.js';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function run(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === undefined || cmd === 'serve') {
    const { main } = await import('./server.js');
    await main();
    return -1;
  }
  if (cmd === 'keys' && sub === 'create') {
    const key = mintKey();
    const id = flag(rest, '--id') ?? `key-${sha256Hex(key).slice(0, 8)}`;
    const name = flag(rest, '--name');
    const record = { id, sha256: sha256Hex(key), ...(name ? { name } : {}) };
    process.stdout.write(
      `API key (shown once, store it now):\n  ${key}\n\nAdd this to "auth": {"keys": [...]} in the config file (NIGHTGATE_CONFIG):\n  ${JSON.stringify(record)}\n`,
    );
    return 0;
  }
  if (cmd === 'config-doc') {
    process.stdout.write(settingsTable() + '\n');
    return 0;
  }
  process.stderr.write('usage: nightgate [serve] | nightgate keys create [--id ID] [--name NAME] | nightgate config-doc\n');
  return 2;
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
