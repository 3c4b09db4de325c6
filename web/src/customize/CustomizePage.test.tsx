import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { getScene } from '#shared/catalogue';
import { formatUsd, quoteRender } from '#shared/pricing';
import { formatReadyIn, readyInSeconds } from '#shared/fast-path';
import { STORAGE_KEYS } from '../lib/storage-keys';
import { VERIFIED_USER, profileWith, renderWithApp } from '../test/render';
import CustomizePage from './CustomizePage';

vi.mock('../lib/api', () => ({
  ApiError: class ApiError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  },
  api: {
    jobs: vi.fn(async () => ({ jobs: [] })),
    favorites: vi.fn(async () => ({ favorites: [] })),
    createJob: vi.fn(async () => ({ job: { jobId: 'job-1' } })),
    livePreview: vi.fn(async () => ({ image: 'data:image/jpeg;base64,' })),
    warmPreviews: vi.fn(async () => ({ warm: true })),
  },
  uploadToStorage: vi.fn(),
}));

const textScene = getScene(1)!;

function renderCustomize(session = {}) {
  return renderWithApp(<CustomizePage />, { route: '/customize/1', path: '/customize/:sceneId', session });
}

describe('customise page', () => {
  beforeEach(() => vi.clearAllMocks());

  it('when the scene id is unknown, it says so', () => {
    renderWithApp(<CustomizePage />, { route: '/customize/42', path: '/customize/:sceneId' });
    expect(screen.getByRole('heading', { name: 'Scene not found' })).toBeInTheDocument();
  });

  it('when a visitor submits, settings are saved and they go to /login with the path stored', async () => {
    renderCustomize();
    expect(screen.getByRole('heading', { name: 'Customize Scene 1' })).toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('Custom Text'));
    await userEvent.paste('Hello');
    await userEvent.click(screen.getByRole('button', { name: 'Sign In & Render' }));
    expect(screen.getByTestId('location')).toHaveTextContent('/login');
    expect(sessionStorage.getItem(STORAGE_KEYS.redirectAfterLogin)).toBe('/customize/1');
    expect(JSON.parse(sessionStorage.getItem(STORAGE_KEYS.sceneSettings(1))!)).toMatchObject({ customText: 'Hello' });
  });

  it('when the resolution changes, the estimate follows the shared calculator and fields clamp on blur', async () => {
    renderCustomize();
    const width = screen.getByLabelText('Resolution X (width)');
    await userEvent.clear(width);
    await userEvent.type(width, '99999');
    await userEvent.tab();
    expect(width).toHaveValue('4096');
    await userEvent.click(screen.getByRole('button', { name: /3840×2160/ }));
    expect(screen.getByLabelText('Resolution Y (height)')).toHaveValue('2160');
    const expected = formatUsd(quoteRender(textScene, { mode: 'still', resolutionX: 3840, resolutionY: 2160 }).finalPrice);
    expect(screen.getAllByText(expected).length).toBeGreaterThan(0);
    // Beside the render time the price is computed from: when the result should be ready, from the render manifest.
    const readyIn = formatReadyIn(readyInSeconds({ sceneId: textScene.id, resolutionX: 3840, resolutionY: 2160, totalFrames: 1, isStill: true }));
    expect(screen.getByText(`ready in ${readyIn}`)).toBeInTheDocument();
  });

  it('when a required field is missing, Show Errors reveals the messages', async () => {
    renderCustomize({ user: VERIFIED_USER, profile: profileWith(50), emailVerified: true });
    await userEvent.click(screen.getByRole('button', { name: 'Show Errors (1)' }));
    expect(screen.getByText('Please enter the text to render.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Hide Errors (1)' }));
    expect(screen.queryByText('Please enter the text to render.')).not.toBeInTheDocument();
  });

  it('when the balance covers the price, the payment modal defaults to credits and a credit render goes to /job-history', async () => {
    const { api } = await import('../lib/api');
    renderCustomize({ user: VERIFIED_USER, profile: profileWith(50), emailVerified: true });
    await userEvent.click(screen.getByLabelText('Custom Text'));
    await userEvent.paste('Hello');
    await userEvent.click(screen.getByRole('button', { name: /^Render for/ }));
    const confirm = screen.getByRole('dialog', { name: 'Confirm Render Settings' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Continue to Payment' }));
    const payment = screen.getByRole('dialog', { name: 'Payment for Render' });
    expect(within(payment).getByRole('radio', { name: /Pay with credits/ })).toBeChecked();
    await userEvent.click(within(payment).getByRole('button', { name: /Credits & Render/ }));
    expect(api.createJob).toHaveBeenCalledWith(expect.objectContaining({ sceneId: 1, customText: 'Hello', paymentMethod: 'credits', isTest: false }), expect.stringMatching(/^[0-9a-f]{32}$/));
    expect(await screen.findByTestId('location')).toHaveTextContent('/job-history');
  });

  it('when a credit render is retried after a network error, the retry carries the same idempotency key', async () => {
    const { api, ApiError } = await import('../lib/api');
    vi.mocked(api.createJob).mockRejectedValueOnce(new ApiError('network', 'Network Error'));
    renderCustomize({ user: VERIFIED_USER, profile: profileWith(50), emailVerified: true });
    await userEvent.click(screen.getByLabelText('Custom Text'));
    await userEvent.paste('Hello');
    await userEvent.click(screen.getByRole('button', { name: /^Render for/ }));
    await userEvent.click(within(screen.getByRole('dialog', { name: 'Confirm Render Settings' })).getByRole('button', { name: 'Continue to Payment' }));
    const pay = () => userEvent.click(within(screen.getByRole('dialog', { name: 'Payment for Render' })).getByRole('button', { name: /Credits & Render/ }));
    await pay();
    await pay();
    expect(await screen.findByTestId('location')).toHaveTextContent('/job-history');
    const keys = vi.mocked(api.createJob).mock.calls.map((call) => call[1]);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('when the balance is too low, the payment modal defaults to card', async () => {
    renderCustomize({ user: VERIFIED_USER, profile: profileWith(1), emailVerified: true });
    await userEvent.click(screen.getByLabelText('Custom Text'));
    await userEvent.paste('Hello');
    await userEvent.click(screen.getByRole('button', { name: /^Render for/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Continue to Payment' }));
    const payment = screen.getByRole('dialog', { name: 'Payment for Render' });
    expect(within(payment).getByRole('radio', { name: /Pay by card/ })).toBeChecked();
    expect(within(payment).getByRole('button', { name: 'Continue to Card Payment' })).toBeEnabled();
  });

  it('when the modal closes, focus returns to the button that opened it', async () => {
    renderCustomize({ user: VERIFIED_USER, profile: profileWith(50), emailVerified: true });
    await userEvent.click(screen.getByLabelText('Custom Text'));
    await userEvent.paste('Hello');
    const submit = screen.getByRole('button', { name: /^Render for/ });
    await userEvent.click(submit);
    expect(screen.getByRole('dialog', { name: 'Confirm Render Settings' })).toContainElement(document.activeElement as HTMLElement);
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(submit).toHaveFocus();
  });
});
