/**
 * The file input of image, 3D and audio scenes: checks the file against the scene's
 * rule, measures it (image size, audio duration), and when signed in uploads it at
 * once through a presigned POST with a progress bar. The stored name is normalised.
 */
import { useEffect, useRef, useState } from 'react';
import type { Scene } from '#shared/catalogue';
import { ACCEPTED_UPLOADS, requiredUploadKind, uploadProblem } from '#shared/catalogue';
import { normalizeFileName } from '#shared/files';
import { MAX_MEDIA_DURATION_SECONDS } from '#shared/frames';
import { mediaProcessingError, mediaTooLong } from '#shared/messages';
import { UploadIcon } from '../components/Icons';
import { storeUpload } from '../data/uploads';
import { describeFile, type UploadState } from './form-state';
import { measureDuration, measureImage } from './media';

/** A visitor's file stays in this page only: signing in leaves the page, so it is chosen again afterwards. */
export const LOCAL_FILE_HINT = 'Checked and ready. Files are not kept through sign-in: you will choose it again after you sign in.';

const KIND_TITLES = { image: 'Upload your image', model: 'Upload your 3D model', audio: 'Upload your audio' } as const;
const KIND_HINTS = {
  image: 'JPG, PNG, GIF, BMP or WebP, up to 25 MB',
  model: 'FBX, OBJ, STL, glTF, GLB or USD, up to 100 MB',
  audio: 'MP3 or WAV, up to 50 MB and 10 minutes',
} as const;

export function UploadField({
  scene,
  upload,
  signedIn,
  onChange,
}: {
  scene: Scene;
  upload: UploadState | null;
  signedIn: boolean;
  onChange: (update: (current: UploadState | null) => UploadState | null) => void;
}) {
  const kind = requiredUploadKind(scene)!;
  const rule = ACCEPTED_UPLOADS[kind];
  const [dragging, setDragging] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const inputId = `upload-${scene.id}`;
  useEffect(() => () => abort.current?.abort(), []);

  const patch = (changes: Partial<UploadState>) => onChange((current) => (current ? { ...current, ...changes } : current));

  const startUpload = async (file: File, contentType: string) => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    patch({ status: 'uploading', progress: 0, error: undefined });
    try {
      const key = await storeUpload({ sceneId: scene.id, fileName: file.name, contentType, size: file.size }, file, {
        onNamed: (name) => patch({ name }),
        onProgress: (fraction) => patch({ progress: fraction }),
        signal: controller.signal,
      });
      patch({ status: 'uploaded', progress: 1, key });
    } catch (cause) {
      if ((cause as Error).name === 'AbortError') return;
      patch({ status: 'error', error: `Upload failed: ${(cause as Error).message}` });
    }
  };

  const choose = async (file: File | undefined) => {
    if (!file) return;
    abort.current?.abort();
    const contentType = file.type || 'application/octet-stream';
    const problem = uploadProblem(kind, { fileName: file.name, contentType, size: file.size });
    const base: UploadState = {
      file,
      name: normalizeFileName(file.name),
      originalName: file.name,
      type: contentType,
      size: file.size,
      lastModified: file.lastModified,
      status: 'measuring',
      progress: 0,
    };
    if (problem) {
      onChange(() => ({ ...base, status: 'error', error: problem }));
      return;
    }
    const previewUrl = kind === 'image' ? URL.createObjectURL(file) : undefined;
    onChange((current) => {
      if (current?.previewUrl) URL.revokeObjectURL(current.previewUrl);
      return { ...base, previewUrl };
    });
    try {
      if (kind === 'image') {
        const size = await measureImage(previewUrl!);
        patch({ ...size });
      } else if (kind === 'audio') {
        const durationSeconds = await measureDuration(file);
        if (durationSeconds > MAX_MEDIA_DURATION_SECONDS) {
          patch({ status: 'error', durationSeconds, error: mediaTooLong(MAX_MEDIA_DURATION_SECONDS) });
          return;
        }
        patch({ durationSeconds });
      }
    } catch (cause) {
      patch({ status: 'error', error: mediaProcessingError((cause as Error).message) });
      return;
    }
    if (signedIn) await startUpload(file, contentType);
    else patch({ status: 'local' });
  };

  const remove = () => {
    abort.current?.abort();
    onChange((current) => {
      if (current?.previewUrl) URL.revokeObjectURL(current.previewUrl);
      return null;
    });
  };

  const percent = Math.round((upload?.progress ?? 0) * 100);
  return (
    <div className="upload">
      <div
        className={`dropzone ${dragging ? 'dragging' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          void choose(event.dataTransfer.files[0]);
        }}
      >
        <UploadIcon />
        <label htmlFor={inputId}>
          <strong>{upload ? 'Choose another file' : KIND_TITLES[kind]}</strong>
        </label>
        <span className="hint">Drag and drop here, or click to browse. {KIND_HINTS[kind]}</span>
        <input
          id={inputId}
          type="file"
          accept={rule.accept}
          onChange={(event) => {
            void choose(event.target.files?.[0]);
            event.target.value = '';
          }}
        />
      </div>
      {upload && (
        <div className="file-row" aria-live="polite">
          {upload.previewUrl && <img src={upload.previewUrl} alt="" />}
          <div className="file-meta">
            <span className="file-name" title={upload.originalName}>
              {upload.name}
            </span>
            <span className="hint">
              {upload.status === 'error'
                ? ''
                : upload.status === 'measuring'
                  ? 'Reading file...'
                  : describeFile(upload)}
              {upload.name !== upload.originalName && ` · renamed from ${upload.originalName}`}
            </span>
            {upload.status === 'uploading' && (
              <>
                <div className="progress" role="progressbar" aria-label="Upload progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
                  <span style={{ width: `${percent}%` }} />
                </div>
                <span className="hint">Uploading... {percent}%</span>
              </>
            )}
            {upload.status === 'uploaded' && <span className="hint" style={{ color: 'var(--green)' }}>Uploaded ✓</span>}
            {upload.status === 'local' && <span className="hint">{LOCAL_FILE_HINT}</span>}
            {upload.status === 'error' && (
              <span className="field-error" role="alert">
                {upload.error}
              </span>
            )}
          </div>
          {upload.status === 'error' && upload.file && signedIn && !upload.error?.startsWith('This file') && (
            <button type="button" className="btn btn-secondary btn-small" onClick={() => void choose(upload.file)}>
              Retry
            </button>
          )}
          <button type="button" className="btn btn-ghost btn-small" onClick={remove} aria-label={`Remove ${upload.name}`}>
            Remove
          </button>
        </div>
      )}
    </div>
  );
}
