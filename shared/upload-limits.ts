/**
 * What an uploaded image or 3D model may hold, checked from its headers before anything
 * decodes it (the API when the job is created, the worker again before Blender starts).
 * The caps follow what the scenes need, not what the formats allow:
 *
 * - Images are textures (image visualizer, image balls, the bus-stop poster) in renders of
 *   at most 4096 px a side. 50 megapixels keeps a 50-MP phone photo (8160 x 6120); a side
 *   beyond 16,384 px is no photo, and Blender holds such an image twice (its own 4-byte
 *   pixels and Cycles' copy), so a 50,000 x 50,000 "decompression bomb" would ask for
 *   20 GB before the first sample.
 * - Models are shown whole on a turntable: a few million faces is already sub-pixel detail
 *   at 4K, while each vertex costs Blender a few hundred bytes across its mesh, its
 *   modifiers and Cycles' BVH.
 */

export const MAX_IMAGE_PIXELS = 50_000_000;
export const MAX_IMAGE_SIDE = 16_384;
export const MAX_MODEL_VERTICES = 3_000_000;
export const MAX_MODEL_FACES = 3_000_000;

/** Image formats the scenes' Blender decodes, as the header reader names them. */
export const CHECKED_IMAGE_TYPES = ['png', 'jpg', 'gif', 'bmp', 'webp'] as const;

const count = (n: number) => n.toLocaleString('en-US');

export const IMAGE_UNREADABLE = 'The uploaded file is not a readable image. Please upload a JPG, PNG, GIF, BMP or WebP file.';

export function imageTooLarge(width: number, height: number, where: 'upload' | 'model'): string {
  const subject = where === 'upload' ? 'The uploaded image' : 'An image inside the model';
  return `${subject} is ${count(width)} x ${count(height)} pixels. Images may have at most ${count(MAX_IMAGE_PIXELS / 1_000_000)} megapixels and ${count(MAX_IMAGE_SIDE)} pixels a side: please upload a smaller one.`;
}

export const EMBEDDED_IMAGE_UNREADABLE = 'An image inside the model is not a readable PNG, JPEG or WebP image. Please embed its textures as PNG or JPEG.';

export function modelUnreadable(format: string): string {
  return `The uploaded file is not a readable ${format.toUpperCase()} model.`;
}

/**
 * A model may not name another file: the render machine would read that file from its own
 * disk (a local path, /dev/zero) instead of the upload.
 */
export function modelRefersOutside(reference: string): string {
  const shown = reference.length > 60 ? `${reference.slice(0, 57)}...` : reference;
  return `The uploaded model refers to a file outside itself ("${shown}"). Only one file is uploaded: please upload a .glb, or a .gltf with its buffers and textures embedded.`;
}

/**
 * An OBJ line ending in a backslash is joined to the next by Blender's reader, but only within
 * each block it reads at once; refused rather than joined, so no line the inspector reads can
 * differ from the one Blender reads.
 */
export const OBJ_LINE_CONTINUED =
  'The uploaded OBJ model continues a line on the next one (a backslash at the end of a line). Please export it again without line continuations, or as a .glb.';

export function modelTooDetailed(what: 'vertices' | 'faces', found: number): string {
  const cap = what === 'vertices' ? MAX_MODEL_VERTICES : MAX_MODEL_FACES;
  return `The uploaded model has ${count(found)} ${what}; a render accepts at most ${count(cap)}. Please simplify it (decimate it) and upload it again.`;
}
