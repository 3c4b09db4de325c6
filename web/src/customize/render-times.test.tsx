import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { getScene } from '#shared/catalogue';
import { formatReadyIn, readyInSeconds } from '#shared/fast-path';
import { VERIFIED_USER, profileWith, renderWithApp } from '../test/render';
import CustomizePage from './CustomizePage';

vi.mock('../lib/api', () => ({
  ApiError: Error,
  api: {
    jobs: vi.fn(async () => ({ jobs: [] })),
    favorites: vi.fn(async () => ({ favorites: [] })),
    jobQueue: vi.fn(async () => ({ queue: null })),
    livePreview: vi.fn(async () => ({ image: 'data:image/jpeg;base64,' })),
    warmPreviews: vi.fn(async () => ({ warm: true })),
  },
  uploadToStorage: vi.fn(),
}));

const textScene = getScene(1)!;

async function textAt(width: string, height: string) {
  renderWithApp(<CustomizePage />, { route: '/customize/1', path: '/customize/:sceneId', session: { user: VERIFIED_USER, profile: profileWith(50), emailVerified: true } });
  await userEvent.click(screen.getByLabelText('Custom Text'));
  await userEvent.paste('Free Test QA');
  for (const [label, value] of [['Resolution X (width)', width], ['Resolution Y (height)', height]]) {
    const field = screen.getByLabelText(label);
    await userEvent.clear(field);
    await userEvent.type(field, value);
    await userEvent.tab();
  }
}

describe('the times a render is shown with', () => {
  it('when a 480 × 270 free test is confirmed, the dialog and the button give its promise in seconds, not the paid render’s billed minutes', async () => {
    await textAt('480', '270');
    await userEvent.click(screen.getByRole('checkbox', { name: /Test render \(free\)/ }));
    const promise = formatReadyIn(readyInSeconds({ sceneId: textScene.id, resolutionX: 480, resolutionY: 270, isTest: true, totalFrames: 1, isStill: true }));
    expect(promise).toMatch(/^about \d+ s$/);
    expect(screen.getByText(`Ready in ${promise} · you confirm before it starts`)).toBeInTheDocument();
    expect(screen.queryByText(/billed render time|of rendering/)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Start Free Test Render' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm Render Settings' });
    expect(within(dialog).getByText('Ready in').nextElementSibling).toHaveTextContent(promise);
    expect(within(dialog).queryByText(/min/)).not.toBeInTheDocument();
  });

  it('when a paid render is confirmed, the dialog gives its promise and the estimate keeps the billed minutes apart', async () => {
    await textAt('1920', '1080');
    const promise = formatReadyIn(readyInSeconds({ sceneId: textScene.id, resolutionX: 1920, resolutionY: 1080, totalFrames: 1, isStill: true }));
    expect(screen.getByText(/billed render time$/)).toBeInTheDocument();
    expect(screen.getByText(`Ready in ${promise} · you confirm before paying`)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: /^Render for/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm Render Settings' });
    expect(within(dialog).getByText('Ready in').nextElementSibling).toHaveTextContent(promise);
  });
});
