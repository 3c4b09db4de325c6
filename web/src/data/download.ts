/** Saving a rendered file under its own name: the one place the web app fetches a storage link itself. */
import { fileBaseName } from '#shared/files';

/** Fetches the file as a blob and saves it under the file's base name. */
export async function downloadFile(url: string, name: string): Promise<void> {
  // no-store: the same URL may sit in the cache from the <img>/<video> (fetched without
  // CORS), and a cached non-CORS answer would fail this CORS request.
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store' });
  } catch {
    // Storage unreachable by fetch (CORS, network): the signed link itself downloads
    // under the file's name (Content-Disposition: attachment).
    saveLink(url, fileBaseName(name));
    return;
  }
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const blob = await response.blob();
  const objectUrl = URL.createObjectURL(blob);
  saveLink(objectUrl, fileBaseName(name));
  window.setTimeout(() => URL.revokeObjectURL(objectUrl), 10_000);
}

function saveLink(href: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
}
