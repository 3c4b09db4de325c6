import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { getScene } from '#shared/catalogue';
import { api, uploadToStorage } from '../lib/api';
import type { UploadState } from './form-state';
import { LOCAL_FILE_HINT, UploadField } from './UploadField';

vi.mock('../lib/api', () => ({ ApiError: Error, api: { createUpload: vi.fn() }, uploadToStorage: vi.fn() }));

describe('a visitor’s file', () => {
  it('when a visitor has chosen a file, its row says it is chosen again after sign-in, as the page banner does', () => {
    const scene = getScene(2)!;
    render(
      <UploadField
        scene={scene}
        signedIn={false}
        onChange={() => {}}
        upload={{ name: 'poster.png', originalName: 'poster.png', type: 'image/png', size: 1000, lastModified: 1, width: 800, height: 600, status: 'local', progress: 0 }}
      />,
    );
    expect(screen.getByText(LOCAL_FILE_HINT)).toBeInTheDocument();
    expect(screen.queryByText(/uploaded after you sign in/)).not.toBeInTheDocument();
    expect(LOCAL_FILE_HINT).toMatch(/choose it again after you sign in/);
  });
});

describe('a signed-in customer’s file', () => {
  it('when a file is chosen, it is stored under the name the server gives it, its progress shown until it is uploaded', async () => {
    vi.mocked(api.createUpload).mockResolvedValue({ url: 'https://storage.example/uploads', fields: {}, key: 'uploads/u1/k/my-model.obj', maxBytes: 1000, fileName: 'my-model.obj' });
    let progress: (fraction: number) => void = () => {};
    let stored: () => void = () => {};
    vi.mocked(uploadToStorage).mockImplementation((_ticket, _file, onProgress) => {
      progress = onProgress;
      return new Promise<void>((resolve) => (stored = resolve));
    });
    const seen: (UploadState | null)[] = [];
    function Field() {
      const [upload, setUpload] = useState<UploadState | null>(null);
      seen.push(upload);
      return <UploadField scene={getScene(4)!} signedIn upload={upload} onChange={setUpload} />;
    }
    render(<Field />);

    await userEvent.upload(screen.getByLabelText('Upload your 3D model'), new File(['v 0 0 0'], 'My Model.obj'));
    expect(api.createUpload).toHaveBeenCalledWith({ sceneId: 4, fileName: 'My Model.obj', contentType: 'application/octet-stream', size: 7 });
    expect(await screen.findByText('my-model.obj')).toBeInTheDocument();
    act(() => progress(0.5));
    expect(screen.getByRole('progressbar', { name: 'Upload progress' })).toHaveAttribute('aria-valuenow', '50');
    await act(async () => stored());
    expect(screen.getByText('Uploaded ✓')).toBeInTheDocument();
    expect(seen.at(-1)).toMatchObject({ status: 'uploaded', progress: 1, key: 'uploads/u1/k/my-model.obj', name: 'my-model.obj' });
  });
});
