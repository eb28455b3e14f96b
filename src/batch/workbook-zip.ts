/**
 * The parts of a zip archive (an xlsx workbook) read within limits: the central directory
 * names each part, its sizes and CRC; a part is inflated by node:zlib with a cap on its
 * output, so a small file that inflates to gigabytes stops at the cap, whatever size its
 * headers claim, and what comes out must match the directory's size and CRC.
 *
 * Not fflate: `unzipSync` has no cap (it allocates what a header declares, and when a
 * header under-declares it keeps inflating the whole stream into a full buffer), and its
 * streaming `Unzip` finds the end of a part with a data descriptor (as LibreOffice writes
 * every part) by looking for a signature in the compressed bytes.
 */
import { crc32, inflateRawSync } from 'node:zlib';

/** Something in the file that this reader refuses; the caller names the file. */
export class UnreadableWorkbook extends Error {}

export interface Part {
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ZIP64_EXTRA = 0x0001;
const MAX_32 = 0xffffffff;

const damaged = (what: string) => new UnreadableWorkbook(`the zip archive is damaged (${what})`);

/** Little-endian reads that refuse to run past the end, where a damaged archive would lead. */
function reader(bytes: Buffer) {
  const within = (at: number, length: number) => {
    if (!Number.isSafeInteger(at) || at < 0 || at + length > bytes.length)
      throw damaged('a record runs past its end');
    return at;
  };
  return {
    within,
    u16: (at: number) => bytes.readUInt16LE(within(at, 2)),
    u32: (at: number) => bytes.readUInt32LE(within(at, 4)),
    u64: (at: number) => Number(bytes.readBigUInt64LE(within(at, 8))),
    text: (at: number, length: number) => bytes.toString('utf8', within(at, length), at + length),
  };
}

/** Where the central directory starts and how many entries it has (zip64 included). */
function directory(bytes: Buffer): { offset: number; count: number } {
  const read = reader(bytes);
  // The end record is the last 22 bytes, or as many more as its comment (at most 65,535).
  let end = bytes.length - 22;
  const stop = Math.max(0, end - 0xffff);
  while (end >= stop && bytes.readUInt32LE(end) !== EOCD) end -= 1;
  if (end < stop) throw damaged('no end of central directory');
  let count = read.u16(end + 10);
  let offset = read.u32(end + 16);
  if ((count === 0xffff || offset === MAX_32) && end >= 20 && read.u32(end - 20) === ZIP64_LOCATOR) {
    const zip64 = read.u64(end - 12);
    if (read.u32(zip64) !== ZIP64_EOCD) throw damaged('no zip64 end of central directory');
    count = read.u64(zip64 + 32);
    offset = read.u64(zip64 + 48);
  }
  return { offset, count };
}

/** The zip64 extra field's sizes and offset, each present only where the header says 0xFFFFFFFF. */
function zip64Values(bytes: Buffer, at: number, length: number, part: Part): void {
  const read = reader(bytes);
  for (let p = at; p + 4 <= at + length; p += 4 + read.u16(p + 2)) {
    if (read.u16(p) !== ZIP64_EXTRA) continue;
    let q = p + 4;
    const next = () => {
      q += 8;
      return read.u64(q - 8);
    };
    if (part.size === MAX_32) part.size = next();
    if (part.compressedSize === MAX_32) part.compressedSize = next();
    if (part.offset === MAX_32) part.offset = next();
    return;
  }
}

/** The parts whose names `wanted` accepts, as the central directory lists them. */
export function zipParts(bytes: Buffer, wanted: (name: string) => boolean): Map<string, Part> {
  const read = reader(bytes);
  const { offset, count } = directory(bytes);
  const parts = new Map<string, Part>();
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (read.u32(at) !== CENTRAL) throw damaged('a central directory entry is missing');
    const nameLength = read.u16(at + 28);
    const extraLength = read.u16(at + 30);
    const name = read.text(at + 46, nameLength);
    if (wanted(name)) {
      const part: Part = {
        flags: read.u16(at + 8),
        method: read.u16(at + 10),
        crc: read.u32(at + 16),
        compressedSize: read.u32(at + 20),
        size: read.u32(at + 24),
        offset: read.u32(at + 42),
      };
      zip64Values(bytes, at + 46 + nameLength, extraLength, part);
      parts.set(name, part);
    }
    at += 46 + nameLength + extraLength + read.u16(at + 32);
  }
  return parts;
}

const MIB = 1024 * 1024;

/** A part's bytes, inflated to at most `limit` bytes, checked against the directory's size and CRC. */
export function partBytes(bytes: Buffer, name: string, part: Part, limit: number): Buffer {
  const read = reader(bytes);
  const tooBig = () => new UnreadableWorkbook(`${name} holds more than ${limit / MIB} MiB`);
  if (part.flags & 1) throw new UnreadableWorkbook(`${name} is encrypted`);
  if (part.size > limit) throw tooBig();
  if (read.u32(part.offset) !== LOCAL) throw damaged(`${name} is not where the directory says`);
  const start = part.offset + 30 + read.u16(part.offset + 26) + read.u16(part.offset + 28);
  const stored = bytes.subarray(read.within(start, part.compressedSize), start + part.compressedSize);
  let data: Buffer;
  if (part.method === 0) data = stored;
  else if (part.method === 8) {
    try {
      data = inflateRawSync(stored, { maxOutputLength: limit });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooBig();
      throw damaged(`${name}: ${(error as Error).message}`);
    }
  } else
    throw new UnreadableWorkbook(
      `${name} is compressed with method ${part.method}, which this reader does not know`,
    );
  if (data.length !== part.size || crc32(data) !== part.crc)
    throw damaged(`${name} does not match its size or checksum`);
  return data;
}
