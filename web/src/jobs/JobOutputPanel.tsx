/** A done job's output: the main video or image, its download, and the other files. */
import { useEffect, useState } from 'react';
import type { JobView } from '#shared/api-types';
import { isImageFile, isVideoFile } from '#shared/files';
import { DOWNLOAD_FAILED, LOADING_RENDERED_FILES, RENDER_COMPLETED } from '#shared/messages';
import { DownloadIcon } from '../components/Icons';
import { Notice } from '../components/ui';
import { downloadFile } from '../data/download';
import type { JobOutputs } from '../data/jobs';
import { useNotify } from '../lib/toasts';

function DownloadButton({ url, name, label, primary }: { url: string; name: string; label: string; primary?: boolean }) {
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className={`btn ${primary ? 'btn-primary' : 'btn-secondary'} btn-small`}
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        try {
          await downloadFile(url, name);
        } catch (error) {
          console.error('Download failed', error);
          notify(DOWNLOAD_FAILED, 'error');
        } finally {
          setBusy(false);
        }
      }}
    >
      <DownloadIcon size={16} />
      {busy ? 'Downloading...' : label}
    </button>
  );
}

export function JobOutputPanel({ job, outputs, error, onShown }: { job: JobView; outputs: JobOutputs | undefined; error: Error | null; onShown?: () => void }) {
  useEffect(() => {
    if (error) onShown?.();
  }, [error, onShown]);
  if (error) return <Notice kind="warning">{error.message}</Notice>;
  if (!outputs) return <p className="muted">{LOADING_RENDERED_FILES}</p>;
  const { files, main } = outputs;
  const mainFile =
    (main && files.find((file) => file.name === main.name)) ??
    (job.isStillRender ? files.find((f) => isImageFile(f.name, f.contentType) && !/thumb/i.test(f.name)) : files.find((f) => isVideoFile(f.name, f.contentType))) ??
    files[0];
  const isVideo = isVideoFile(mainFile.name, mainFile.contentType);
  const others = files.filter((file) => file !== mainFile);
  return (
    <div className="output-panel">
      <p style={{ margin: 0, color: 'var(--green)', fontWeight: 650 }}>{RENDER_COMPLETED}</p>
      <div className="output-media">
        {isVideo ? (
          <video src={mainFile.url} autoPlay loop muted playsInline controls aria-label={`Rendered video ${mainFile.name}`} onLoadedData={onShown} onError={onShown} />
        ) : (
          <img src={mainFile.url} alt={`Rendered image ${mainFile.name}`} onLoad={onShown} onError={onShown} />
        )}
      </div>
      <div className="row-actions">
        <DownloadButton url={mainFile.url} name={mainFile.name} label={isVideo ? 'Download Video' : 'Download Image'} primary />
        {others.length > 0 && (
          <details className="more">
            <summary>
              {others.length} more file{others.length === 1 ? '' : 's'}
            </summary>
            <ul className="file-list">
              {others.map((file) => (
                <li key={file.name}>
                  <DownloadButton url={file.url} name={file.name} label={file.name} />
                </li>
              ))}
            </ul>
          </details>
        )}
      </div>
    </div>
  );
}
