/**
 * Where Blender is and which version it is. Apart from the rest of the runner so that
 * the API's health check can ask without loading the renderer (or its denoiser).
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';

export const BLENDER_MISSING_MESSAGE =
  'Blender is not installed on this machine: install it with `apt-get install -y blender python3-numpy ffmpeg` (Blender 3.4+), or set BLENDER_PATH.';

export interface BlenderInstall {
  path: string;
  /** e.g. '3.4.1' */
  version: string;
}

/**
 * The Blender to use: BLENDER_PATH, else `blender` on PATH. Null when it is missing or
 * does not answer `--version` like Blender.
 */
export async function findBlender(): Promise<BlenderInstall | null> {
  const configured = process.env.BLENDER_PATH?.trim();
  const candidate = configured || (await findOnPath('blender'));
  if (!candidate) return null;
  return new Promise((resolve) => {
    execFile(candidate, ['--version'], { timeout: 60_000 }, (error, stdout) => {
      const match = /Blender (\d+\.\d+(?:\.\d+)?)/.exec(String(stdout));
      resolve(error || !match ? null : { path: candidate, version: match[1] });
    });
  });
}

async function findOnPath(command: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, command);
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  return null;
}
