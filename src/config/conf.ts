/**
 * conf, loaded on first use of the stored profiles, leaving the process's signals as they
 * were. Its writer (atomically) loads when-exit, which on import listens for SIGINT,
 * SIGTERM and a dozen other signals, and on the first one re-sends that signal to this
 * process so as to die of it once its clean-up ran. The CLI owns its stop signals
 * (main.ts: the first aborts the command, a second exits at once), so the echo would read
 * as a second Ctrl-C and cut the first one's orderly stop short; and a signal Node would
 * otherwise ignore (SIGXFSZ: a write past the file size limit, which must fail with
 * EFBIG and be reported) would kill the process instead. So every process listener the
 * import adds is removed, here, the one place conf is loaded. Nothing is lost: what
 * when-exit cleans up (atomically's temporary files) exists only during a synchronous
 * write, which no signal handler can interrupt, and the write removes it on failure.
 */
import type { EventEmitter } from 'node:events';
import type Conf from 'conf';

type Listener = (...args: unknown[]) => void;

/**
 * The signals Node starts with ignored (a write past the file size limit fails with EFBIG
 * instead of killing the process). Once a listener was added and removed, such a signal
 * falls back to its default action: a listener that does nothing keeps it ignored.
 */
const IGNORED_BY_NODE = new Set<string | symbol>(['SIGPIPE', 'SIGXFSZ']);
const ignore = () => {};

export async function loadConf(): Promise<typeof Conf> {
  // Its events by name, whatever they are (signals, `exit`): the process as any emitter.
  const emitter: EventEmitter = process;
  const before = new Map(emitter.eventNames().map((event) => [event, emitter.listeners(event)]));
  const { default: conf } = await import('conf');
  for (const event of emitter.eventNames()) {
    const kept = before.get(event) ?? [];
    const added = emitter.listeners(event).filter((listener) => !kept.includes(listener));
    if (added.length > 0 && kept.length === 0 && IGNORED_BY_NODE.has(event)) emitter.on(event, ignore);
    for (const listener of added) emitter.removeListener(event, listener as Listener);
  }
  return conf;
}
