import { render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { getScene } from '#shared/catalogue';
import { CustomizeLoading, firstPreviewImage } from './CustomizeIntro';

function loadingAt(path: string) {
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/customize/:sceneId" element={<CustomizeLoading />} />
      </Routes>
    </MemoryRouter>,
  );
}

describe('the customise page while its code loads', () => {
  it("when a scene's page is opened, its title, description and preview show with the loading status", () => {
    const scene = getScene(1)!;
    loadingAt('/customize/1');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Customize Scene 1');
    expect(screen.getByText(scene.description)).toBeInTheDocument();
    expect(screen.getByRole('img', { name: `${scene.title} example` })).toHaveAttribute('src', firstPreviewImage(scene));
    expect(screen.getByRole('status')).toHaveTextContent('Loading scene...');
  });

  it('when the scene does not exist, only the loading status shows', () => {
    loadingAt('/customize/999');
    expect(screen.queryByRole('heading')).toBeNull();
    expect(screen.getByRole('status')).toHaveTextContent('Loading scene...');
  });
});
