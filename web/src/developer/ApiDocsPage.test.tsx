import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { buildOpenApiDocument } from '#shared/openapi';
import { renderWithApp } from '../test/render';
import ApiDocsPage from './ApiDocsPage';

vi.mock('../data/developer-api', () => ({
  developerApi: { openApi: vi.fn(async () => JSON.parse(JSON.stringify(buildOpenApiDocument()))) },
}));

describe('the API reference page', () => {
  it('when it shows an operation, it lists every answer the document gives it', async () => {
    renderWithApp(<ApiDocsPage />);
    const answers = await screen.findByRole('list', { name: 'createRender answers' });
    const statuses = within(answers).getAllByRole('listitem').map((item) => item.querySelector('code')?.textContent);
    expect(statuses).toEqual(['201', '400', '401', '402', '409', '413', '415', '429', '500', '503']);
  });

  it('when it shows webhooks, it names both events and shows how to verify a signature', async () => {
    renderWithApp(<ApiDocsPage />);
    const webhooks = await screen.findByRole('article', { name: 'Webhooks' });
    expect(webhooks.textContent).toContain('render.done');
    expect(webhooks.textContent).toContain('render.failed');
    expect(within(webhooks).getByLabelText('Verifying a webhook signature').textContent).toContain("createHmac('sha256', secret)");
  });

  it('when it shows the command line, it is the render command with its environment', async () => {
    renderWithApp(<ApiDocsPage />);
    const command = await screen.findByLabelText('The render command');
    expect(command.textContent).toContain('CLOUD_RENDER_API_KEY');
    expect(command.textContent).toContain('npm run render -- --scene text-animation');
  });
});
