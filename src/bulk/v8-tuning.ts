/**
 * V8 settings for a bulk run, applied from inside the CLI (never asked of the user).
 *
 * A bulk run keeps little alive (the plan is columns outside the V8 heap, codes wait
 * on disk), so its peak memory is set by how V8 sizes itself, not by the file:
 *
 * - `--liftoff-only`: undici parses HTTP with llhttp compiled to WebAssembly, and V8
 *   tiers its large parser function up with TurboFan in the first second of the run,
 *   which costs a one-off ~26 MB spike and keeps ~8 MB of code. Liftoff (the baseline
 *   WebAssembly compiler) parses a few thousand responses just as well.
 * - `--optimize-for-size`: V8 grows the heap and the young generation less eagerly
 *   and compacts more, trading a little CPU (the run waits on the network anyway)
 *   for a peak RSS that stays flat with the file size.
 *
 * Both only change how code is compiled and memory is managed, never what it does.
 * Measured figures are in the README, "Benchmarks". GIFTCODES_V8_TUNING=0 turns this off.
 */
import { setFlagsFromString } from 'node:v8';

let applied = false;

export function tuneV8ForBulk(env: Record<string, string | undefined>): void {
  if (applied || env.GIFTCODES_V8_TUNING === '0') return;
  applied = true;
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--optimize-for-size');
}
