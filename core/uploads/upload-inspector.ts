/**
 * Reads an uploaded image or 3D model's headers and structure, without decoding a pixel or
 * building a mesh, and refuses what the render machine must not open: a model that names
 * another file (Blender's importers would read that path from the machine's own disk), a
 * model or image larger than the caps in shared/upload-limits.ts, or a file that is not
 * what its name says. The API runs it when a job is created and the worker again on the
 * file it is about to hand to Blender, since a presigned upload can be sent again, with
 * other content, until it expires.
 *
 * Formats: glTF and GLB are read completely (every buffer and image URI, every mesh's
 * accessor counts, every embedded image's header); OBJ and STL by their vertex and face
 * records. FBX and USD are binary formats of their own and are not read here: Blender
 * imports them under the scene's memory and time limits and drops every image they name
 * on disk (render/scenes/model-viewer.py).
 */
import { readFile } from 'node:fs/promises';
import { imageSize } from 'image-size';
import type { UploadKind } from '#shared/catalogue';
import { fileExtension } from '#shared/files';
import {
  CHECKED_IMAGE_TYPES,
  EMBEDDED_IMAGE_UNREADABLE,
  IMAGE_UNREADABLE,
  imageTooLarge,
  MAX_IMAGE_PIXELS,
  MAX_IMAGE_SIDE,
  MAX_MODEL_FACES,
  MAX_MODEL_VERTICES,
  modelRefersOutside,
  modelTooDetailed,
  modelUnreadable,
  OBJ_LINE_CONTINUED,
} from '#shared/upload-limits';

/** The upload cannot be rendered; the message is for the user as is. */
export class UploadRefusedError extends Error {
  override name = 'UploadRefusedError';
}

export interface ImageFigures {
  type: string;
  width: number;
  height: number;
}

export interface ModelFigures {
  format: 'gltf' | 'glb' | 'obj' | 'stl';
  vertices: number;
  faces: number;
  images: ImageFigures[];
}

/** Checks a stored upload of the given kind; audio is measured elsewhere (ffprobe). */
export async function inspectUploadFile(file: string, kind: UploadKind): Promise<ImageFigures | ModelFigures | undefined> {
  if (kind === 'audio') return undefined;
  const bytes = await readFile(file);
  return kind === 'image' ? inspectImage(bytes, 'upload') : inspectModel(bytes, fileExtension(file));
}

// ---------------------------------------------------------------- images

/** Width and height from the image's header only; refuses unknown formats and images over the caps. */
export function inspectImage(bytes: Uint8Array, where: 'upload' | 'model'): ImageFigures {
  let size: { width?: number; height?: number; type?: string };
  try {
    // The reader looks through the view into its whole ArrayBuffer (a GLB's next bytes, Node's
    // shared pool), so a cut-short header would be completed from there: give it its own copy.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    size = imageSize(own);
  } catch {
    throw new UploadRefusedError(where === 'upload' ? IMAGE_UNREADABLE : EMBEDDED_IMAGE_UNREADABLE);
  }
  const { type = '' } = size;
  // A JPEG's size is its first frame header's, the one Blender's decoder reads (image-size scans on past the image's end).
  const { width, height } = type === 'jpg' ? (jpegFrame(bytes) ?? {}) : size;
  if (!(CHECKED_IMAGE_TYPES as readonly string[]).includes(type) || !width || !height) {
    throw new UploadRefusedError(where === 'upload' ? IMAGE_UNREADABLE : EMBEDDED_IMAGE_UNREADABLE);
  }
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS) {
    throw new UploadRefusedError(imageTooLarge(width, height, where));
  }
  return { type, width, height };
}

/**
 * A JPEG's frame as libjpeg (Blender's decoder) reads it: the first frame header of the
 * image, segment by segment from its start. Only Huffman-coded baseline, extended and
 * progressive frames (SOF0-SOF2) are accepted: image-size reads no other kind, so a
 * lossless, hierarchical or arithmetic-coded frame (SOF3, SOF5-SOF15, which libjpeg may
 * decode) would pass with the size of a header planted after it. Undefined for anything else.
 */
function jpegFrame(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  for (let at = 2; at + 4 <= bytes.length; ) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1];
    // A fill byte before a marker.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // The image's end, or its scan, before any frame header.
    if (marker === 0xd9 || marker === 0xda) return undefined;
    // Markers without a length: restart markers and TEM.
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    if (length < 2) return undefined;
    // C4 (DHT), C8 (reserved) and CC (DAC) share the frame headers' range without being one.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (marker > 0xc2 || at + 9 > bytes.length) return undefined;
      return { height: (bytes[at + 5] << 8) | bytes[at + 6], width: (bytes[at + 7] << 8) | bytes[at + 8] };
    }
    at += 2 + length;
  }
  return undefined;
}

// ---------------------------------------------------------------- models

/** Figures of a model, or an UploadRefusedError; FBX and USD are not read (see the module's comment). */
export function inspectModel(bytes: Uint8Array, extension: string): ModelFigures | undefined {
  let figures: ModelFigures;
  switch (extension) {
    case 'gltf':
    case 'glb':
      // Blender's importer tells the two apart by content, whatever the extension says.
      figures = startsWith(bytes, 'glTF') ? inspectGlb(bytes) : inspectGltfJson(parseJson(bytes, 'gltf'), [], 'gltf');
      break;
    case 'obj':
      figures = inspectObj(bytes);
      break;
    case 'stl':
      figures = inspectStl(bytes);
      break;
    default:
      return undefined;
  }
  if (figures.vertices > MAX_MODEL_VERTICES) throw new UploadRefusedError(modelTooDetailed('vertices', figures.vertices));
  if (figures.faces > MAX_MODEL_FACES) throw new UploadRefusedError(modelTooDetailed('faces', figures.faces));
  return figures;
}

const GLB_JSON_CHUNK = 0x4e4f534a;
const GLB_BIN_CHUNK = 0x004e4942;

/** A binary glTF: 12-byte header (magic, version 2, length), a JSON chunk, then an optional BIN chunk. */
function inspectGlb(bytes: Uint8Array): ModelFigures {
  const unreadable = () => new UploadRefusedError(modelUnreadable('glb'));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 20 || view.getUint32(4, true) !== 2) throw unreadable();
  const length = view.getUint32(8, true);
  if (length > bytes.length) throw unreadable();
  let json: unknown;
  let bin: Uint8Array | undefined;
  for (let offset = 12; offset < length; ) {
    if (offset + 8 > length) throw unreadable();
    const chunkLength = view.getUint32(offset, true);
    const chunkType = view.getUint32(offset + 4, true);
    const start = offset + 8;
    if (start + chunkLength > length) throw unreadable();
    const data = bytes.subarray(start, start + chunkLength);
    if (offset === 12) {
      if (chunkType !== GLB_JSON_CHUNK) throw unreadable();
      json = parseJson(data, 'glb');
    } else if (chunkType === GLB_BIN_CHUNK && !bin) {
      bin = data;
    }
    offset = start + chunkLength;
  }
  if (json === undefined) throw unreadable();
  return inspectGltfJson(json, bin ? [bin] : [], 'glb');
}

function parseJson(bytes: Uint8Array, format: 'gltf' | 'glb'): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, ''));
  } catch {
    throw new UploadRefusedError(modelUnreadable(format));
  }
}

interface GltfPrimitive {
  attributes?: { POSITION?: unknown };
  indices?: unknown;
  mode?: unknown;
}

/**
 * The glTF rules: every buffer and image is embedded (no `uri`, or a base64 `data:` URI
 * exactly as Blender's importer decodes it); the vertices and faces of every mesh, as many
 * times as nodes use it, stay under the caps; every embedded image's header is within the
 * image caps. `glbBuffers` holds the GLB's BIN chunk, which buffer 0 refers to without a URI.
 */
function inspectGltfJson(json: unknown, glbBuffers: Uint8Array[], format: 'gltf' | 'glb'): ModelFigures {
  const unreadable = () => new UploadRefusedError(modelUnreadable(format));
  if (!isObject(json)) throw unreadable();
  const buffers = arrayOf(json.buffers);
  const images = arrayOf(json.images);
  const bufferViews = arrayOf(json.bufferViews);
  const accessors = arrayOf(json.accessors);
  const meshes = arrayOf(json.meshes);
  const nodes = arrayOf(json.nodes);
  if ([buffers, images, bufferViews, accessors, meshes, nodes].some((list) => list === undefined)) throw unreadable();

  // References first, then the counts: base64 is decoded last, and only for the images.
  for (const entry of [...buffers!, ...images!]) {
    if (!isObject(entry)) throw unreadable();
    if (entry.uri !== undefined) embeddedUriOrRefuse(entry.uri, unreadable);
  }
  const decoded = new Map<number, Uint8Array | undefined>();
  const bufferBytes = (index: number) => {
    if (!decoded.has(index)) {
      const buffer = buffers![index] as Record<string, unknown> | undefined;
      const uri = buffer?.uri;
      decoded.set(index, uri === undefined ? (index === 0 ? glbBuffers[0] : undefined) : embeddedData(uri, unreadable));
    }
    return decoded.get(index);
  };

  const countOf = (index: unknown): number => {
    const accessor = typeof index === 'number' ? accessors![index] : undefined;
    const count = isObject(accessor) ? accessor.count : undefined;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) throw unreadable();
    return count;
  };
  const uses = new Map<number, number>();
  for (const node of nodes!) {
    if (isObject(node) && typeof node.mesh === 'number') uses.set(node.mesh, (uses.get(node.mesh) ?? 0) + 1);
  }
  let vertices = 0;
  let faces = 0;
  meshes!.forEach((mesh, meshIndex) => {
    const primitives = isObject(mesh) ? arrayOf(mesh.primitives) : undefined;
    if (!primitives) throw unreadable();
    const instances = Math.max(1, uses.get(meshIndex) ?? 0);
    for (const primitive of primitives as GltfPrimitive[]) {
      if (!isObject(primitive) || !isObject(primitive.attributes)) throw unreadable();
      const points = primitive.attributes.POSITION === undefined ? 0 : countOf(primitive.attributes.POSITION);
      const corners = primitive.indices === undefined ? points : countOf(primitive.indices);
      vertices += points * instances;
      faces += facesOf(primitive.mode ?? 4, corners) * instances;
    }
  });

  const figures: ImageFigures[] = [];
  for (const image of images as Record<string, unknown>[]) {
    let data: Uint8Array | undefined;
    if (image.uri !== undefined) data = embeddedData(image.uri, unreadable);
    else if (typeof image.bufferView === 'number') data = bufferViewData(bufferViews![image.bufferView], bufferBytes, unreadable);
    if (data) figures.push(inspectImage(data, 'model'));
  }
  return { format, vertices, faces, images: figures };
}

/** Triangles drawn from `corners` indices: a list, a strip or a fan; points and lines draw none. */
function facesOf(mode: unknown, corners: number): number {
  switch (mode) {
    case 4:
      return Math.floor(corners / 3);
    case 5:
    case 6:
      return Math.max(0, corners - 2);
    default:
      return 0;
  }
}

/**
 * Blender's glTF importer decodes a URI only when it starts with `data:` and holds
 * `;base64,`; any other URI is joined to the model's folder and opened as a file.
 */
function embeddedUriOrRefuse(uri: unknown, unreadable: () => Error): string {
  if (typeof uri !== 'string') throw unreadable();
  const marker = uri.indexOf(';base64,');
  if (!uri.startsWith('data:') || marker === -1) throw new UploadRefusedError(modelRefersOutside(uri));
  return uri.slice(marker + ';base64,'.length);
}

function embeddedData(uri: unknown, unreadable: () => Error): Uint8Array {
  return Buffer.from(embeddedUriOrRefuse(uri, unreadable), 'base64');
}

function bufferViewData(bufferView: unknown, bufferBytes: (index: number) => Uint8Array | undefined, unreadable: () => Error): Uint8Array {
  if (!isObject(bufferView) || typeof bufferView.buffer !== 'number' || typeof bufferView.byteLength !== 'number') throw unreadable();
  const buffer = bufferBytes(bufferView.buffer);
  const start = typeof bufferView.byteOffset === 'number' ? bufferView.byteOffset : 0;
  if (!buffer || start < 0 || start + bufferView.byteLength > buffer.length) throw unreadable();
  return buffer.subarray(start, start + bufferView.byteLength);
}

/**
 * OBJ: `v` and `f` records counted. A material library (`mtllib`) may only be a bare file
 * name: the render machine holds the model alone in its job's folder, so such a name
 * finds nothing and the model renders in clay; a path (`../`, `/`, a drive) would reach
 * outside that folder and is refused.
 *
 * Blender 3.4's reader (`wm.obj_import`, the one the scene calls) joins a line that ends in a
 * backslash, followed by any bytes up to the space (a CR of CRLF among them), to the next
 * line: `mtllib\` + newline + `../x.mtl` is a material library, `v\` + newline + `0 0 0` a
 * vertex. It joins only inside each block it reads at once, so joining here would have to
 * copy its block size to read what it reads; such a line is refused instead, and on every
 * other file both read the very same lines.
 */
function inspectObj(bytes: Uint8Array): ModelFigures {
  // Scanned byte by byte: splitting a 100 MB file into lines takes seconds, this a fraction of one.
  const NEWLINE = 0x0a;
  const BACKSLASH = 0x5c;
  // Blender's OBJ reader takes every byte up to the space (0x20) for a blank: before a keyword, after it and between words.
  const isBlank = (byte: number | undefined) => byte !== undefined && byte <= 0x20 && byte !== NEWLINE;
  const MTLLIB = Buffer.from('mtllib');
  let vertices = 0;
  let faces = 0;
  for (let at = 0; at < bytes.length; ) {
    let next = bytes.indexOf(NEWLINE, at);
    if (next === -1) next = bytes.length;
    if (next < bytes.length) {
      let last = next - 1;
      while (last >= at && isBlank(bytes[last])) last -= 1;
      if (last >= at && bytes[last] === BACKSLASH) throw new UploadRefusedError(OBJ_LINE_CONTINUED);
    }
    let first = at;
    while (first < next && isBlank(bytes[first])) first += 1;
    const record = bytes[first];
    if (record === 0x76 /* v */ && isBlank(bytes[first + 1])) vertices += 1;
    else if (record === 0x66 /* f */ && isBlank(bytes[first + 1])) faces += 1;
    else if (record === 0x6d /* m */ && MTLLIB.every((byte, i) => bytes[first + i] === byte) && isBlank(bytes[first + 6])) {
      const words = bytes.subarray(first + 6, next).map((byte) => (isBlank(byte) ? 0x20 : byte));
      const names = Buffer.from(words).toString('latin1').trim().split(/ +/);
      for (const name of names) {
        if (name === '' || /[\\/:]/.test(name) || name.startsWith('..') || name.startsWith('~')) throw new UploadRefusedError(modelRefersOutside(name));
      }
    }
    at = next + 1;
  }
  if (vertices === 0) throw new UploadRefusedError(modelUnreadable('obj'));
  return { format: 'obj', vertices, faces, images: [] };
}

/** STL: binary when its size is exactly 80-byte header + count + 50 bytes a triangle, else ASCII. */
function inspectStl(bytes: Uint8Array): ModelFigures {
  if (bytes.length >= 84) {
    const triangles = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
    if (84 + 50 * triangles === bytes.length) return { format: 'stl', vertices: 3 * triangles, faces: triangles, images: [] };
  }
  // Any other size is read as text, as Blender does: three `vertex` lines make a triangle.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const triangles = Math.ceil((text.match(/^[ \t\v\f\r]*vertex\b/gm)?.length ?? 0) / 3);
  if (triangles === 0) throw new UploadRefusedError(modelUnreadable('stl'));
  return { format: 'stl', vertices: 3 * triangles, faces: triangles, images: [] };
}

function startsWith(bytes: Uint8Array, ascii: string): boolean {
  return bytes.length >= ascii.length && [...ascii].every((char, i) => bytes[i] === char.charCodeAt(0));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON array, [] when absent, undefined when it is something else. */
function arrayOf(value: unknown): unknown[] | undefined {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : undefined;
}
