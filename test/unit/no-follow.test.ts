import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { LinkedFileError, openToRead, openToWrite } from '#core/storage/no-follow';

let dir: string;
let secret: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'no-follow-'));
  // Stands for a file of the worker's machine that a render tool must not get the worker to read or write.
  secret = join(dir, 'secret.txt');
  await writeFile(secret, 'worker secret');
  await mkdir(join(dir, 'out'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const read = async (file: string) => {
  const handle = await openToRead(file);
  return (await handle.readFile('utf8').finally(() => handle.close())) as string;
};

describe('opening files a render tool wrote', () => {
  it('when the path names a plain file, it is read and written', async () => {
    await writeFile(join(dir, 'out', 'frame.png'), 'pixels');
    expect(await read(join(dir, 'out', 'frame.png'))).toBe('pixels');
    const handle = await openToWrite(join(dir, 'out', 'clean.f32'));
    await handle.writeFile('clean').finally(() => handle.close());
    expect(await readFile(join(dir, 'out', 'clean.f32'), 'utf8')).toBe('clean');
  });

  it('when the tool put a symbolic link where its frame should be, reading and writing it are refused', async () => {
    await symlink(secret, join(dir, 'out', 'linked.png'));
    await expect(read(join(dir, 'out', 'linked.png'))).rejects.toBeInstanceOf(LinkedFileError);
    await expect(openToWrite(join(dir, 'out', 'linked.png'))).rejects.toBeInstanceOf(LinkedFileError);
    expect(await readFile(secret, 'utf8')).toBe('worker secret');
  });

  it('when the tool swapped its folder for a link, a file reached through it is refused', async () => {
    await mkdir(join(dir, 'real'));
    await writeFile(join(dir, 'real', 'frame.png'), 'elsewhere');
    await symlink(join(dir, 'real'), join(dir, 'swapped'));
    await expect(read(join(dir, 'swapped', 'frame.png'))).rejects.toThrow(/leads to/);
  });

  it('when the tool made a second name (hard link) of another file, reading and emptying it are refused', async () => {
    await link(secret, join(dir, 'out', 'hard.png'));
    await expect(read(join(dir, 'out', 'hard.png'))).rejects.toThrow(/names: refused/);
    await expect(openToWrite(join(dir, 'out', 'hard.png'))).rejects.toThrow(/names: refused/);
    expect(await readFile(secret, 'utf8')).toBe('worker secret');
  });

  it('when the tool put a pipe where its frame should be, the read is refused at once instead of waiting', async () => {
    execFileSync('mkfifo', [join(dir, 'out', 'pipe.png')]);
    await expect(read(join(dir, 'out', 'pipe.png'))).rejects.toThrow(/not a regular file/);
  });
});
