/**
 * A file system filling up, injected through the writers' `FileOps` seam: handles of
 * the matching paths take at most half of each write (a short write), and ENOSPC once
 * `room` bytes are taken. `when` delays the fault until a write carries that text.
 */
import { type FileHandle, open } from 'node:fs/promises';
import type { FileOps } from '../../src/io/safe-write.js';

export function fillingDisk(
  room: number,
  match: (path: string) => boolean = () => true,
  when?: string,
): FileOps & { faulted: string[] } {
  const faulted: string[] = [];
  return {
    faulted,
    async open(path, flags, mode) {
      const handle = await open(path, flags, mode);
      if (!match(path)) return handle;
      let taken = 0;
      let armed = when === undefined;
      const write = async (
        buffer: Uint8Array,
        offset = 0,
        length = buffer.length - offset,
        position?: number | null,
      ) => {
        if (
          !armed &&
          Buffer.from(buffer.subarray(offset, offset + length))
            .toString('utf8')
            .includes(when ?? '')
        )
          armed = true;
        if (!armed) return handle.write(buffer, offset, length, position);
        if (taken >= room) {
          faulted.push(path);
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        const n = Math.min(Math.max(1, Math.floor(length / 2)), room - taken);
        taken += n;
        return handle.write(buffer, offset, n, position);
      };
      return new Proxy(handle, {
        get(target, key) {
          if (key === 'write') return write;
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as FileHandle;
    },
  };
}
