import { describe, expect, it } from 'vitest';
import { invocationOf, serveInvocations } from '#render/lambda-runtime';
import { runtimeApiDouble } from './runtime-api-double';

describe('the render function speaks the Lambda Runtime API', () => {
  it('when an invocation arrives, the handler runs on its event and its result or its error goes back under its request id', async () => {
    const api = await runtimeApiDouble([{ step: 'chunk', jobId: 'j1', userId: 'u1', index: 3 }, { step: 'delete-everything' }]);
    const loop = serveInvocations(api.address, async (event) => ({ ran: invocationOf(event) }));
    await expect(loop).rejects.toThrow(/without a request id/);
    api.close();
    expect(api.posted).toHaveLength(2);
    expect(api.posted[0]).toMatchObject({ path: '/2018-06-01/runtime/invocation/req-1/response' });
    expect(JSON.parse(api.posted[0].body)).toEqual({ ran: { step: 'chunk', jobId: 'j1', userId: 'u1', index: 3 } });
    expect(api.posted[1]).toMatchObject({ path: '/2018-06-01/runtime/invocation/req-0/error', errorType: 'Unhandled' });
  });
});
