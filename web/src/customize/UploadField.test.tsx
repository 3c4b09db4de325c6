import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { getScene } from '../../../shared/catalogue';
import { LOCAL_FILE_HINT, UploadField } from './UploadField';

vi.mock('../lib/api', () => ({ ApiError: Error, api: {}, uploadToStorage: vi.fn() }));

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
