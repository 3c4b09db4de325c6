/**
 * Where Blender is and which version it is. Apart from the rest of the runner so that
 * the API's health check can ask without loading the renderer (or its denoiser).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export const BLENDER_MISSING_MESSAGE =
  'Blender is not installed on this machine: install it with `apt-get install -y blender python3-numpy ffmpeg` (Blender 3.4+), or set BLENDER_PATH.';

export interface BlenderInstall {
  path: string;
  /** e.g. '3.4.1' */
  version: string;
}

/** Each Blender's answer to `--version`, once per process (a Lambda environment's, or a pool worker's). */
const installs = new Map<string, Promise<BlenderInstall | null>>();

/**
 * The Blender to use: BLENDER_PATH, else `blender` on PATH. Null when it is missing or
 * does not answer `--version` like Blender. Asked once per process and path: `--version`
 * starts a whole Blender, which a chunk would otherwise pay again before its render starts.
 * A missing Blender is asked again next time (it may have been installed since).
 */
export function findBlender(): Promise<BlenderInstall | null> {
  const configured = process.env.BLENDER_PATH?.trim();
  const candidate = configured || findExecutable('blender');
  if (!candidate) return Promise.resolve(null);
  let install = installs.get(candidate);
  if (!install) {
    install = new Promise((resolve) => {
      execFile(candidate, ['--version'], { timeout: 60_000 }, (error, stdout) => {
        const match = /Blender (\d+\.\d+(?:\.\d+)?)/.exec(String(stdout));
        resolve(error || !match ? null : { path: candidate, version: match[1] });
      });
    });
    installs.set(candidate, install);
    void install.then((found) => found || installs.delete(candidate));
  }
  return install;
}

/** A command's file: as given when it is a path, else the first on PATH that may be run; null when there is none. */
export function findExecutable(command: string): string | null {
  const candidates = command.includes('/') ? [command] : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, command));
  return (
    candidates.find((file) => {
      try {
        accessSync(file, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }) ?? null
  );
}
