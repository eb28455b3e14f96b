/**
 * System error codes in words: the one table every message uses, so a person reads "no
 * such file or directory", not `ENOENT`. A code not listed here takes the words Node's
 * own table gives (`util.getSystemErrorMap`, libuv's), and a code neither knows stays as
 * it is, so nothing is ever hidden. The code itself stays on the error (`.code`,
 * `FileWriteError.errno`) for scripts and `--debug`.
 */
import { getSystemErrorMap } from 'node:util';

const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  EEXIST: 'a file of that name already exists',
  ELOOP: 'a symbolic link is in the way',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  EBUSY: 'the file is busy',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EFBIG: 'the file is larger than this process may write',
  EIO: 'an input/output error',
  EROFS: 'the file system is read-only',
  EADDRINUSE: 'the address is already in use',
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EAI_AGAIN: 'the host name could not be looked up (a temporary DNS failure)',
  ENOTFOUND: 'the host name does not resolve',
  // undici's own codes for the same conditions.
  UND_ERR_SOCKET: 'the connection was closed by the other side',
  UND_ERR_CLOSED: 'the connection was closed',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
};

let system: Map<string, string> | undefined;

/** Node's words for a code it knows (`ENOTEMPTY` -> "directory not empty"). */
function systemWords(code: string): string | undefined {
  if (!system) {
    system = new Map();
    for (const [name, message] of getSystemErrorMap().values()) system.set(name, message);
  }
  return system.get(code);
}

/** The words for an error code, or the code itself when no table knows it. */
export function errnoWords(code: string): string {
  return WORDS[code] ?? systemWords(code) ?? code;
}

/**
 * The code of a system error (`ENOENT`: Node's carry the call that failed, `syscall`) or
 * of undici's (`UND_ERR_SOCKET`), when `error` is one. The CLI's own errors have codes
 * too (`USAGE`, the service's `EXTERNAL_SERVICE_ERROR`): those are not errno codes.
 */
export function errnoOf(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof code !== 'string' || code === '') return undefined;
  return typeof syscall === 'string' || code.startsWith('UND_ERR_') ? code : undefined;
}

/** Why an operation failed, in words: its code's, else its message. */
export function failureWords(error: unknown): string {
  const code = errnoOf(error);
  if (code) return errnoWords(code);
  return error instanceof Error ? error.message : String(error);
}
