/** File names and kinds: an upload's name made safe, a download's name, image and video extensions. */

/**
 * Normalises an uploaded file name: accents removed, whitespace runs become one
 * underscore, and every character other than ASCII letters, digits, `_`, `.` and `-`
 * is dropped. A name left without a stem (e.g. '日本.png' → '.png') gets the stem 'file'
 * so the result is never empty nor a hidden dot-file.
 */
export function normalizeFileName(name: string): string {
  const cleaned = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .replace(/\s+/g, '_')
    .replace(/[^A-Za-z0-9_.-]/g, '');
  if (cleaned === '') return 'file';
  return cleaned.startsWith('.') ? `file${cleaned}` : cleaned;
}

/** Lower-case extension without the dot ('' when there is none); ignores ?query and #hash. */
export function fileExtension(nameOrUrl: string): string {
  const name = fileBaseName(nameOrUrl);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/**
 * The name a download is saved under: the last path segment of a URL or path, without
 * query string or hash, URL-decoded. Falls back to 'download' when nothing is left.
 */
export function fileBaseName(urlOrPath: string): string {
  let path = urlOrPath;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname; // drops the host, so 'https://host/' has no name
    } catch {
      // Not a valid URL after all: treat it as a plain path.
    }
  }
  path = path.split(/[?#]/, 1)[0];
  const segment = path.split(/[\\/]/).filter(Boolean).pop() ?? '';
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A malformed %-escape: keep the raw segment rather than fail the download.
  }
  // An encoded separator (%2F) must not smuggle a directory into the saved name.
  const name = decoded.split(/[\\/]/).pop() ?? '';
  return name === '' ? 'download' : name;
}

/** Output and preview formats. */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'bmp', 'webp'] as const;
export const VIDEO_EXTENSIONS = ['mp4', 'webm', 'mov'] as const;

export function isImageFile(nameOrUrl: string, contentType?: string): boolean {
  if (contentType?.startsWith('image/')) return true;
  return (IMAGE_EXTENSIONS as readonly string[]).includes(fileExtension(nameOrUrl));
}

export function isVideoFile(nameOrUrl: string, contentType?: string): boolean {
  if (contentType?.startsWith('video/')) return true;
  return (VIDEO_EXTENSIONS as readonly string[]).includes(fileExtension(nameOrUrl));
}
