/** Run nightgate's real process entry (via tsx) and wait for lines on its output. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Proc {
  child: ChildProcess;
  out: string[];
  /** Resolves with the first output line matching `re` (stdout or stderr). */
  waitFor(re: RegExp): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Proc {
  return runProcess(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { PATH: process.env['PATH'], ...env });
}

/** Any command from the repository root; `detached` makes it a process group (kill with `-pid`). */
export function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv, opts: { detached?: boolean } = {}): Proc {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false });
  const out: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: (l: string) => void }> = [];
  const onLine = (l: string): void => {
    out.push(l);
    for (const w of [...waiters])
      if (w.re.test(l)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(l);
      }
  };
  for (const s of [child.stdout!, child.stderr!]) {
    let buf = '';
    s.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    out,
    exited,
    waitFor: (re) => {
      const hit = out.find((l) => re.test(l));
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        waiters.push({ re, resolve });
        void exited.then(() => reject(new Error(`process exited before ${re}; output:\n${out.join('\n')}`)));
      });
    },
  };
}

/** Config for a process that must not start the embedded devnet: every network on a closed loopback port. */
export const NO_DEVNET_ENV: NodeJS.ProcessEnv = Object.fromEntries(
  ['MAINNET', 'PREPROD', 'PREVIEW'].flatMap((n) => [
    [`NIGHTGATE_${n}_INDEXER`, 'http://127.0.0.1:9/api/v4/graphql'],
    [`NIGHTGATE_${n}_PROVER`, 'upstream'],
    [`NIGHTGATE_${n}_PROVER_URL`, 'http://127.0.0.1:9'],
  ]),
);
