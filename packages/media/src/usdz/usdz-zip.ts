import { crc32 } from 'node:zlib';

// USDZ is a ZIP with constraints (AOUSD/Pixar "usdz" spec): entries stored, not
// compressed; the first entry is the root layer; each file's data starts on a
// 64-byte boundary so runtimes can mmap it. yazl cannot pad local headers, so the
// container is written here; it is a few fixed-layout records.

export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

export const USDZ_ALIGNMENT = 64;

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIR = 0x06054b50;
const LOCAL_HEADER_SIZE = 30;
const CENTRAL_HEADER_SIZE = 46;
const END_RECORD_SIZE = 22;
const VERSION_NEEDED = 20; // 2.0: the lowest version that still allows folders in names
// Any unregistered header id works; readers skip extra fields they do not know.
const PADDING_EXTRA_ID = 0x1986;
// Fixed 1980-01-01 00:00 timestamp keeps output byte-identical for identical input.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

function checkName(name: string): Buffer {
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(name) || name.split('/').some((p) => p === '..' || p === '.')) {
    throw new Error(`usdz: unsafe entry name ${JSON.stringify(name)}`);
  }
  return Buffer.from(name, 'ascii');
}

/** Extra-field bytes needed so that data following a header at `headerEnd` is aligned. */
function paddingFor(headerEnd: number, alignment: number): number {
  let pad = (alignment - (headerEnd % alignment)) % alignment;
  // An extra field needs at least its 4-byte id+size header.
  if (pad > 0 && pad < 4) pad += alignment;
  return pad;
}

/**
 * The run of fields a local header (at 4) and a central record (at 6) share: version
 * needed, flags, method, time, date, CRC, both sizes, name and extra-field lengths.
 */
function writeSharedFields(buf: Buffer, at: number, crc: number, size: number, nameLength: number, extraLength: number): void {
  buf.writeUInt16LE(VERSION_NEEDED, at);
  buf.writeUInt16LE(0, at + 2); // flags: no data descriptor, no encryption
  buf.writeUInt16LE(0, at + 4); // method: stored
  buf.writeUInt16LE(DOS_TIME, at + 6);
  buf.writeUInt16LE(DOS_DATE, at + 8);
  buf.writeUInt32LE(crc, at + 10);
  buf.writeUInt32LE(size, at + 14); // compressed size: stored, so the same
  buf.writeUInt32LE(size, at + 18);
  buf.writeUInt16LE(nameLength, at + 22);
  buf.writeUInt16LE(extraLength, at + 24);
}

export function writeAlignedZip(entries: ZipEntry[], alignment = USDZ_ALIGNMENT): Buffer {
  if (entries.length > 0xffff) throw new Error('usdz: too many entries for a non-zip64 archive');
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  const seen = new Set<string>();
  let offset = 0;

  for (const entry of entries) {
    if (seen.has(entry.name)) throw new Error(`usdz: duplicate entry ${entry.name}`);
    seen.add(entry.name);
    const name = checkName(entry.name);
    const size = entry.data.byteLength;
    const crc = crc32(entry.data) >>> 0;
    const pad = paddingFor(offset + LOCAL_HEADER_SIZE + name.length, alignment);

    const local = Buffer.alloc(LOCAL_HEADER_SIZE + name.length + pad);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    writeSharedFields(local, 4, crc, size, name.length, pad);
    name.copy(local, LOCAL_HEADER_SIZE);
    if (pad > 0) {
      local.writeUInt16LE(PADDING_EXTRA_ID, LOCAL_HEADER_SIZE + name.length);
      local.writeUInt16LE(pad - 4, LOCAL_HEADER_SIZE + name.length + 2);
    }

    const record = Buffer.alloc(CENTRAL_HEADER_SIZE + name.length);
    record.writeUInt32LE(CENTRAL_HEADER, 0);
    record.writeUInt16LE(VERSION_NEEDED, 4); // version made by (MS-DOS attribute semantics)
    writeSharedFields(record, 6, crc, size, name.length, 0);
    // comment (32), disk (34), internal (36), external attrs (38) stay zero
    record.writeUInt32LE(offset, 42);
    name.copy(record, CENTRAL_HEADER_SIZE);
    central.push(record);

    parts.push(local, Buffer.from(entry.data.buffer, entry.data.byteOffset, size));
    offset += local.length + size;
    if (offset > 0xffffffff) throw new Error('usdz: archive exceeds 4 GiB (zip64 not supported)');
  }

  const centralSize = central.reduce((sum, b) => sum + b.length, 0);
  const end = Buffer.alloc(END_RECORD_SIZE);
  end.writeUInt32LE(END_OF_CENTRAL_DIR, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, end]);
}

export interface ZipEntryInfo {
  name: string;
  method: number;
  size: number;
  crc: number;
  dataOffset: number;
}

/** Reads back local headers in file order; enough for tests and sanity checks. */
export function listZipEntries(zip: Uint8Array): ZipEntryInfo[] {
  const buf = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
  const out: ZipEntryInfo[] = [];
  let offset = 0;
  while (offset + 4 <= buf.length && buf.readUInt32LE(offset) === LOCAL_HEADER) {
    const method = buf.readUInt16LE(offset + 8);
    const crc = buf.readUInt32LE(offset + 14);
    const size = buf.readUInt32LE(offset + 18);
    const nameLength = buf.readUInt16LE(offset + 26);
    const extraLength = buf.readUInt16LE(offset + 28);
    const name = buf.toString('utf8', offset + LOCAL_HEADER_SIZE, offset + LOCAL_HEADER_SIZE + nameLength);
    const dataOffset = offset + LOCAL_HEADER_SIZE + nameLength + extraLength;
    out.push({ name, method, size, crc, dataOffset });
    offset = dataOffset + size;
  }
  return out;
}
