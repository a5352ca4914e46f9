/**
 * What every baseline server process shares: its fixture (argv `--fixture FILE`, written by the
 * bench), its ready line on stdout (`{"baseline":NAME,"port":N}`), and exiting on SIGTERM/SIGINT.
 */
import { readFixture, type SummaryFixture } from '../lib/summary-fixture.js';

export const SUMMARY_ROUTE = '/api/v1/:network/summary';

export function fixtureFromArgv(): SummaryFixture {
  const i = process.argv.indexOf('--fixture');
  const file = i >= 0 ? process.argv[i + 1] : undefined;
  if (!file) {
    process.stderr.write('usage: <baseline> --fixture FILE (written by the bench)\n');
    process.exit(2);
  }
  return readFixture(file);
}

export function announce(name: string, port: number, close: () => void): void {
  process.stdout.write(`${JSON.stringify({ baseline: name, port })}\n`);
  const stop = (): void => {
    close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
