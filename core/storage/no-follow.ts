/**
 * Opening files a render tool wrote. Blender and ffmpeg run as their own user and
 * own the folders they write to, so they may put a symbolic link where a frame
 * should be (to /proc/<worker>/environ, say) for the worker to upload or overwrite.
 * These open a file only if the path names it with no link anywhere on the way
 * (and never block on a pipe put there instead of a file).
 */
import { constants } from 'node:fs';
import { open, readlink, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';

export class LinkedFileError extends Error {
  override name = 'LinkedFileError';
}

async function checked(handle: FileHandle, wanted: string): Promise<FileHandle> {
  try {
    // Linux names the file an open descriptor reaches; a link anywhere on the path makes it differ.
    const actual = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => wanted);
    if (actual !== wanted) throw new LinkedFileError(`${wanted} leads to ${actual}: refused`);
    const stats = await handle.stat();
    if (!stats.isFile()) throw new LinkedFileError(`${wanted} is not a regular file: refused`);
    // A second name of another file (a hard link, where the kernel does not forbid making one) is refused too.
    if (stats.nlink > 1) throw new LinkedFileError(`${wanted} has ${stats.nlink} names: refused`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Opens a file for reading; the path must be canonical (a folder made under os.tmpdir() is). */
export async function openToRead(file: string): Promise<FileHandle> {
  const wanted = resolve(file);
  const handle = await open(wanted, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ELOOP' ? new LinkedFileError(`${wanted} is a link: refused`) : error;
  });
  return checked(handle, wanted);
}

/** Opens a file for writing (created, or emptied once it is known to be what its path names). */
export async function openToWrite(file: string): Promise<FileHandle> {
  const wanted = resolve(file);
  const handle = await open(wanted, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ELOOP' ? new LinkedFileError(`${wanted} is a link: refused`) : error;
  });
  const opened = await checked(handle, wanted);
  await opened.truncate(0);
  return opened;
}
