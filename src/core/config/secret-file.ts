/** Files that hold secrets (a mnemonic, a config file with keys in it) must not be open to every user. */
import { statSync } from 'node:fs';

/** Why a file holding a secret is refused, or undefined when it is not open to every user of the machine. */
export function openSecretFile(path: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const mode = statSync(path).mode;
  return (mode & 0o007) === 0 ? undefined : `${path} holds secrets and is open to every user (mode ${(mode & 0o777).toString(8)}); chmod o-rwx it`;
}
