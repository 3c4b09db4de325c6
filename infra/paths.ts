import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root, so assets resolve the same from `cdk synth`, the tests and any working directory. */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export const fromRoot = (...segments: string[]): string => join(repoRoot, ...segments);
