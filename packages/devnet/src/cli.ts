// Runs the embedded devnet alone, for wallets and tests: `npm run devnet`, or
// `npx tsx packages/devnet/src/cli.ts`.
//   --port-base N        network i listens on N + i (default: free ports)
//   --block-time-ms N    block interval (default 6000)
//   --state-dir DIR      persist the chains there (default: in memory)
//   --retain-blocks N    blocks each indexer keeps in memory (default 1000); older ones are served
//                        from the state dir, or pruned without one
//   --networks a,b,c     network names (default mainnet,preprod,preview)
//   --sponsor-wallet     a server wallet funded and registered at genesis: its keys (128 hex, DUST
//                        seed ‖ NIGHT key) or a legacy 32-byte seed (64 hex); repeatable
//   --ledger 8|9         ledger era of every network (default 9)
//   --ledger9-at-height N  with --ledger 8: switch to ledger 9 at block N, from a fresh state
import { parseArgs } from 'node:util';
import { DEFAULT_ERA, isEra, type Era } from '@nightgate/ledger/era';
import { pino } from 'pino';
import { reasonOf } from './errors.js';
import { launchDevnet } from './launch.js';
import { devnetTestAccount } from './test-accounts.js';

/** The `--ledger` asked for; any number that names no era runs the default one. */
function ledgerEra(asked: number): Era {
  return isEra(asked) ? asked : DEFAULT_ERA;
}

function integer(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer, got '${text}'`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'port-base': { type: 'string' },
      'block-time-ms': { type: 'string' },
      'state-dir': { type: 'string' },
      'retain-blocks': { type: 'string' },
      networks: { type: 'string' },
      'sponsor-wallet': { type: 'string', multiple: true },
      ledger: { type: 'string' },
      'ledger9-at-height': { type: 'string' },
    },
    strict: true,
  });
  const logger = pino({ name: 'nightgate-devnet' });
  const names = (values.networks ?? 'mainnet,preprod,preview')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const devnet = await launchDevnet(
    {
      networks: names.map((name) => ({
        name,
        seed: `nightgate-devnet-${name}`,
        sponsorWallets: values['sponsor-wallet'] ?? [],
        ledger: ledgerEra(integer('ledger', values.ledger, DEFAULT_ERA)),
        ledger9AtHeight: integer('ledger9-at-height', values['ledger9-at-height'], 0),
      })),
      blockTimeMs: integer('block-time-ms', values['block-time-ms'], 6000),
      ...(values['state-dir'] ? { stateDir: values['state-dir'] } : {}),
      ...(values['retain-blocks'] !== undefined ? { retainBlocks: integer('retain-blocks', values['retain-blocks'], 0) } : {}),
      logger,
    },
    { portBase: integer('port-base', values['port-base'], 0) },
  );
  for (const n of devnet.networks) {
    const account = devnetTestAccount(n.name);
    process.stdout.write(
      [
        `${n.name} (ledger network id ${n.networkId}, ledger ${n.ledger}${n.ledger9AtHeight ? `, ledger 9 from height ${n.ledger9AtHeight}` : ''})`,
        `  graphql    ${n.graphqlUrl}`,
        `  websocket  ${n.graphqlWsUrl}`,
        `  submit     ${n.submitUrl}`,
        `  faucet     ${n.faucetUrl}`,
        `  test account (devnet only, public): night seed ${account.nightSeed}`,
        '',
      ].join('\n'),
    );
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping devnet');
    devnet.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err: reasonOf(err) }, 'devnet did not close cleanly');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`nightgate devnet: ${reasonOf(err)}\n`);
  process.exit(1);
});
