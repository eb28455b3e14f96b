/**
 * Error codes in words (src/io/errno.ts): the table's words, Node's own for a code the
 * table lacks, the code itself for one nobody knows, and only system errors read as such
 * (the CLI's and the service's codes are not errno codes).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ApiError, FileWriteError, UsageError } from '../../src/errors.js';
import { errnoOf, errnoWords, failureWords } from '../../src/io/errno.js';

describe('errnoWords', () => {
  it.each([
    ['ENOENT', 'no such file or directory'],
    ['EACCES', 'permission denied'],
    ['ENOSPC', 'no space left on the device'],
    ['ECONNREFUSED', 'the connection was refused'],
    ['UND_ERR_SOCKET', 'the connection was closed by the other side'],
    // Not in the table: Node's (libuv's) words.
    ['ENOTEMPTY', 'directory not empty'],
    // Nobody's: the code stays, nothing is hidden.
    ['E_SOMETHING_NEW', 'E_SOMETHING_NEW'],
  ])('%s -> %s', (code, words) => {
    expect(errnoWords(code)).toBe(words);
  });
});

describe('errnoOf and failureWords', () => {
  it('read a real system error in words', async () => {
    const error = await readFile('/nonexistent/giftcodes/missing.csv').catch((e: unknown) => e);
    expect(errnoOf(error)).toBe('ENOENT');
    expect(failureWords(error)).toBe('no such file or directory');
  });

  it("take the CLI's and the service's codes for what they are, not errno codes", () => {
    expect(errnoOf(new UsageError('bad'))).toBeUndefined();
    const upstream = new ApiError({ status: 502, code: 'EXTERNAL_SERVICE_ERROR', message: 'provider down' });
    expect(errnoOf(upstream)).toBeUndefined();
    expect(failureWords(upstream)).toBe('provider down');
    expect(failureWords('a string')).toBe('a string');
  });

  it('FileWriteError words its errno from the same table, keeping the code', () => {
    expect(new FileWriteError('out.csv', 'EROFS').message).toBe(
      'cannot write out.csv whole: the file system is read-only (EROFS)',
    );
    expect(new FileWriteError('out.csv', 'E_ODD').message).toBe(
      'cannot write out.csv whole: the write failed (E_ODD)',
    );
  });
});
