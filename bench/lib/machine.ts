/** What a result is tagged with: the commit it measured and the machine it ran on. */
import { execFileSync } from 'node:child_process';
import { cpus, platform, arch, release, totalmem } from 'node:os';
import { loadUws } from '../../src/core/http/uws.js';
import { ROOT } from './paths.js';
import type { MachineInfo } from './types.js';

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
  } catch {
    return undefined;
  }
}

export function commitInfo(): { commit: string; dirty: boolean } {
  // What the bench itself writes (the report, the chart, raw figures) does not make a run dirty.
  const changed = git(['status', '--porcelain', '--', '.', ':(exclude)bench/RESULTS.md', ':(exclude)bench/results']) ?? '';
  return { commit: git(['rev-parse', '--short', 'HEAD']) ?? 'unknown', dirty: changed !== '' };
}

export function machineInfo(): MachineInfo {
  const cpu = cpus();
  let uws: string;
  try {
    uws = loadUws().source;
  } catch (err) {
    uws = `not loadable: ${(err as Error).message.split('\n')[0]}`;
  }
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryMiB: Math.round(totalmem() / 2 ** 20),
    kernel: release(),
    platform: `${platform()}-${arch()}`,
    node: process.version,
    uws,
  };
}
