import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FunctionFarm } from '#adapters/function-farm';
import { dependencyFailure } from '#core/errors';

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
    expect(await farm.submit({ jobId: 'j1', userId: 'u1', inputKey: 'uploads/u1/a.wav', workerTicket: 't1' }, [0, 1, 2], { finish: true })).toEqual([]);
    expect(sent.map((command) => [command.input.FunctionName, command.input.InvocationType])).toEqual(Array(3).fill(['render-fn', 'Event']));
    expect(sent.map(payloadOf)).toEqual([0, 1, 2].map((index) => ({ step: 'chunk', jobId: 'j1', userId: 'u1', inputKey: 'uploads/u1/a.wav', workerTicket: 't1', index })));
  });

  it('when every chunk is already done, the finishing step alone is invoked; without a function name nothing is sent', async () => {
    recordInvokes();
    await new FunctionFarm({ region: 'eu-west-1', functionName: 'render-fn' }).submit({ jobId: 'j2', userId: 'u2', workerTicket: 't2' }, [], { finish: true });
    expect(sent.map(payloadOf)).toEqual([{ step: 'finish', jobId: 'j2', userId: 'u2', workerTicket: 't2' }]);
    await expect(new FunctionFarm({ region: 'eu-west-1' }).submit({ jobId: 'j3', userId: 'u3', workerTicket: 't3' }, [0], { finish: false })).rejects.toThrow(/RENDER_FUNCTION_NAME/);
    // A worker never names its own job: without the ticket the launcher made, nothing is sent.
    await expect(new FunctionFarm({ region: 'eu-west-1', functionName: 'render-fn' }).submit({ jobId: 'j4', userId: 'u4' }, [0], { finish: false })).rejects.toThrow(/worker ticket/);
    expect(sent).toHaveLength(1);
  });

  it('when Lambda keeps throttling the Invoke, the submission fails as the farm being unavailable: a 503 with Retry-After, not a 500', async () => {
    process.env.AWS_ACCESS_KEY_ID ??= 'test';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
    let attempts = 0;
    const lambda = createServer((request, response) => {
      attempts += 1;
      request.resume();
      response.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' }).end(JSON.stringify({ message: 'Rate exceeded', Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded' }));
    });
    await new Promise<void>((done) => lambda.listen(0, '127.0.0.1', done));
    try {
      const farm = new FunctionFarm({ region: 'eu-west-1', functionName: 'render-fn', endpoint: `http://127.0.0.1:${(lambda.address() as AddressInfo).port}` });
      const error = await farm.submit({ jobId: 'j5', userId: 'u5', workerTicket: 't5' }, [0], { finish: false }).then(() => undefined, (thrown: unknown) => thrown);
      expect(attempts, 'tried again within the request budget').toBeGreaterThan(1);
      expect(dependencyFailure(error)).toMatchObject({ code: 'unavailable', dependency: 'farm', retryAfterSeconds: 2 });
    } finally {
      await new Promise<void>((done) => lambda.close(() => done()));
    }
  }, 20_000);

  it('when a job has more chunks than are sent at once, every chunk is invoked once, at most 50 in flight, and one slow answer holds back none of the others', async () => {
    let inFlight = 0;
    let most = 0;
    let sentWhileSlow = -1;
    vi.spyOn(LambdaClient.prototype, 'send').mockImplementation(async (command: unknown) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      const slow = payloadOf(command as InvokeCommand).index === 0;
      // The first chunk's Invoke answers late; the others at once.
      await new Promise((resolve) => setTimeout(resolve, slow ? 500 : 1));
      if (slow) sentWhileSlow = sent.length;
      sent.push(command as InvokeCommand);
      inFlight -= 1;
      return { StatusCode: 202 };
    });
    const indexes = Array.from({ length: 120 }, (_, i) => i);
    await new FunctionFarm({ region: 'eu-west-1', functionName: 'render-fn' }).submit({ jobId: 'j6', userId: 'u6', workerTicket: 't6' }, indexes, { finish: true });
    expect(sent.map(payloadOf).map((payload) => payload.index).sort((a, b) => a - b)).toEqual(indexes);
    expect(most).toBe(50);
    expect(sentWhileSlow, 'sent while the first answer was late: all the others, not only its round').toBe(119);
  });
});
