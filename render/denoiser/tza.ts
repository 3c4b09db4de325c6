/**
 * Reads OpenImageDenoise's weight container (.tza): a 2-byte magic, a version, the offset of
 * a table, then per tensor its name, shape, layout ('oihw' or 'x'), data type ('f' float32
 * or 'h' float16) and the offset of its data. Every tensor comes back as float32.
 */
import { readFile } from 'node:fs/promises';

export interface WeightTensor {
  shape: number[];
  layout: string;
  data: Float32Array;
}

const MAGIC = 0x41d7;

export class WeightsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WeightsError';
  }
}

export async function readTza(file: string): Promise<Map<string, WeightTensor>> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new WeightsError(`denoiser weights cannot be read from ${file}: ${(error as Error).message}`);
  }
  return parseTza(bytes, file);
}

export function parseTza(bytes: Buffer, source = 'weights'): Map<string, WeightTensor> {
  const fail = (why: string): never => {
    throw new WeightsError(`${source} is not an OpenImageDenoise weights file: ${why}`);
  };
  if (bytes.length < 16 || bytes.readUInt16LE(0) !== MAGIC) fail('bad magic');
  const major = bytes[2];
  if (major !== 2) fail(`unsupported version ${major}.${bytes[3]}`);
  const tableOffset = Number(bytes.readBigUInt64LE(4));
  if (tableOffset + 4 > bytes.length) fail('table past the end');
  const tensors = new Map<string, WeightTensor>();
  let at = tableOffset;
  try {
    const count = bytes.readUInt32LE(at);
    at += 4;
    for (let i = 0; i < count; i += 1) {
      const nameLength = bytes.readUInt16LE(at);
      const name = bytes.toString('latin1', at + 2, at + 2 + nameLength);
      at += 2 + nameLength;
      const dims = bytes[at];
      at += 1;
      const shape = Array.from({ length: dims }, (_, d) => bytes.readUInt32LE(at + 4 * d));
      at += 4 * dims;
      const layout = bytes.toString('latin1', at, at + dims);
      at += dims;
      const dataType = String.fromCharCode(bytes[at]);
      const dataOffset = Number(bytes.readBigUInt64LE(at + 1));
      at += 9;
      const size = shape.reduce((a, b) => a * b, 1);
      const byteSize = size * (dataType === 'h' ? 2 : 4);
      if (dataType !== 'h' && dataType !== 'f') fail(`tensor ${name} has data type ${dataType}`);
      if (dataOffset + byteSize > bytes.length) fail(`tensor ${name} runs past the end`);
      const data = new Float32Array(size);
      if (dataType === 'f') for (let k = 0; k < size; k += 1) data[k] = bytes.readFloatLE(dataOffset + 4 * k);
      else for (let k = 0; k < size; k += 1) data[k] = halfToFloat(bytes.readUInt16LE(dataOffset + 2 * k));
      tensors.set(name, { shape, layout, data });
    }
  } catch (error) {
    if (error instanceof WeightsError) throw error;
    fail(`truncated table (${(error as Error).message})`);
  }
  return tensors;
}

export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}
