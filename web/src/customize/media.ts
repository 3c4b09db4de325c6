/** Measuring an upload in the browser: an image's pixel size, an audio file's duration. */
import { IMAGE_LOAD_FAILED, MEDIA_METADATA_FAILED } from '#shared/messages';

export function measureImage(url: string): Promise<{ width: number; height: number }> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
    image.onerror = () => reject(new Error(IMAGE_LOAD_FAILED));
    image.src = url;
  });
}

export function measureDuration(file: Blob): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(file);
    const audio = document.createElement('audio');
    const done = () => URL.revokeObjectURL(url);
    audio.preload = 'metadata';
    audio.onloadedmetadata = () => {
      done();
      if (Number.isFinite(audio.duration) && audio.duration > 0) resolve(audio.duration);
      else reject(new Error(MEDIA_METADATA_FAILED));
    };
    audio.onerror = () => {
      done();
      reject(new Error(MEDIA_METADATA_FAILED));
    };
    audio.src = url;
  });
}
