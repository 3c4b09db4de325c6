import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FunctionFarm } from '../../adapters/function-farm';

// Lambda's control plane cannot be reached from here: its client's send is the edge, recorded.
const sent: InvokeCommand[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  sent.length = 0;
});
function recordInvokes() {
  vi.spyOn(LambdaClient.prototype, 'send').mockImplementation(async (command: unknown) => {
    sent.push(command as InvokeCommand);
    return { StatusCode: 202 };
  });
}
const payloadOf = (command: InvokeCommand) => JSON.parse(new TextDecoder().decode(command.input.Payload as Uint8Array));

describe('the render function farm', () => {
  it("when a job's chunks are submitted, each chunk is one asynchronous invocation carrying the job's scope, and the finishing step asks for none", async () => {
    recordInvokes();
    const farm = new FunctionFarm({ region: 'eu-west-1', functionName: 'render-fn' });
    expect(await farm.submit({ jobId: 'j1', userId: 'u1', inputKey: 'uploads/u1/a.wav', workerTicket: 't1' }, [0, 1, 2], { encode: true })).toEqual([]);
    expect(sent.map((command) => [command.input.FunctionName, command.input.InvocationType])).toEqual(Array(3).fill(['render-fn', 'Event']));
    expect(sent.map(payloadOf)).toEqual([0, 1, 2].map((index) => ({ step: 'chunk', jobId: 'j1', userId: 'u1', inputKey: 'uploads/u1/a.wav', workerTicket: 't1', index })));
  });

  it('when every chunk is already done, the finishing step alone is invoked; without a function name nothing is sent', async () => {
    recordInvokes();
    await new FunctionFarm({ region: 'eu-west-1', functionName: 'render-fn' }).submit({ jobId: 'j2', userId: 'u2', workerTicket: 't2' }, [], { encode: true });
    expect(sent.map(payloadOf)).toEqual([{ step: 'encode', jobId: 'j2', userId: 'u2', workerTicket: 't2' }]);
    await expect(new FunctionFarm({ region: 'eu-west-1' }).submit({ jobId: 'j3', userId: 'u3', workerTicket: 't3' }, [0], { encode: false })).rejects.toThrow(/RENDER_FUNCTION_NAME/);
    // A worker never names its own job: without the ticket the launcher made, nothing is sent.
    await expect(new FunctionFarm({ region: 'eu-west-1', functionName: 'render-fn' }).submit({ jobId: 'j4', userId: 'u4' }, [0], { encode: false })).rejects.toThrow(/worker ticket/);
    expect(sent).toHaveLength(1);
  });
});
