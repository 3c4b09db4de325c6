import { createSocket } from 'node:dgram';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The tracer as it runs on Lambda: the environment Lambda sets for an invocation with
 * active tracing, and a UDP socket where the X-Ray daemon would listen, which
 * receives the subsegments the SDK sends.
 */
const TRACE_ID = '1-5759e988-bd862e3fe1be46a994272793';
const lambdaEnvironment = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  AWS_LAMBDA_FUNCTION_NAME: 'cloud-render-jobs',
  LAMBDA_TASK_ROOT: '/var/task',
  _X_AMZN_TRACE_ID: `Root=${TRACE_ID};Parent=53995c3f42cd8ad8;Sampled=1`,
};
const saved = Object.fromEntries(Object.keys(lambdaEnvironment).map((key) => [key, process.env[key]]));

afterAll(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('traces', () => {
  it('when a request about a job runs on Lambda with tracing, it is a subsegment named after its route and annotated with the job id', async () => {
    const daemon = createSocket('udp4');
    const received: string[] = [];
    daemon.on('message', (message) => received.push(message.toString()));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    Object.assign(process.env, lambdaEnvironment, { AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}` });
    try {
      // Loaded only now: the X-Ray SDK reads the Lambda environment when it loads.
      const { traced } = await import('#observability/tracing');
      const { withLogScope, addToLogScope } = await import('#observability/logger');
      const answer = await withLogScope({ requestId: 'request-1' }, () =>
        traced('POST /api/jobs', async () => {
          addToLogScope({ jobId: 'job-created-here' });
          return 'served';
        }),
      );
      expect(answer).toBe('served');
      const deadline = Date.now() + 5_000;
      while (!received.some((message) => message.includes('"type":"subsegment"')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const subsegment = JSON.parse(received.find((message) => message.includes('"type":"subsegment"'))!.split('\n')[1]);
      expect(subsegment).toMatchObject({ name: '## POST /api/jobs', trace_id: TRACE_ID, annotations: { jobId: 'job-created-here', Service: 'cloud-render' } });
    } finally {
      daemon.close();
      delete process.env.AWS_XRAY_DAEMON_ADDRESS;
    }
  });
});
