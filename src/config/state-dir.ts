/**
 * Where the tool keeps what must outlive one output folder: the copy of each bulk
 * batch's journal. Not configuration (a profile never holds it), so it has its own
 * place:
 * - `GIFTCODES_STATE_DIR`, when set;
 * - else `<GIFTCODES_CONFIG_DIR>/state`, when that is set (tests, CI and containers
 *   that move the config move this too);
 * - else `$XDG_STATE_HOME/giftcodes` or `~/.local/state/giftcodes` (Linux and other
 *   Unixes, per the XDG base directory spec), and the platform's data directory on
 *   macOS and Windows (env-paths).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import envPaths from 'env-paths';

export function stateDir(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.GIFTCODES_STATE_DIR) return env.GIFTCODES_STATE_DIR;
  if (env.GIFTCODES_CONFIG_DIR) return join(env.GIFTCODES_CONFIG_DIR, 'state');
  if (platform === 'darwin' || platform === 'win32') return envPaths('giftcodes', { suffix: '' }).data;
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'giftcodes');
}
