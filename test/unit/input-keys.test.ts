import { describe, expect, it } from 'vitest';
import { isOwnInputKey } from '#core/storage/storage';

const me = 'c4f8e2a0-1b2c-4d5e-8f90-123456789abc';
const other = '0d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const id = '6424abb2-3d2d-42ed-82ec-af3600468803';

describe('whose upload a key names', () => {
  it('when the key is one the server issued to the user, it is theirs', () => {
    expect(isOwnInputKey(me, `uploads/${me}/${id}/song.mp3`)).toBe(true);
  });

  it.each([
    ['another user\'s key', `uploads/${other}/${id}/song.mp3`],
    ['a key climbing out of the user\'s folder with ..', `uploads/${me}/../${other}/${id}/song.mp3`],
    ['a key whose file name is ..', `uploads/${me}/${id}/..`],
    ['a key with an extra folder', `uploads/${me}/${id}/sub/song.mp3`],
    ['a key that is not under uploads/', `outputs/${me}/${id}/song.mp3`],
  ])('when the key is %s, it is not theirs', (_what, key) => {
    expect(isOwnInputKey(me, key)).toBe(false);
  });
});
