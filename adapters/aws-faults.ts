/**
 * Injected AWS faults, for tests and the local stack (FAULTS). DynamoDB Local never
 * throttles and never cancels a transaction for a conflict, and s3rver never answers
 * 500, so the code that meets those answers on AWS would never run here. This
 * middleware sits between the SDK's deserializer and the network: it answers some
 * requests with the very status, headers and body AWS sends, so the SDK builds its own
 * error class from them and its retry strategy treats them as it treats real ones.
 *
 * FAULTS is a comma-separated list of `service.kind:probability`, for example
 * `ddb.throttle:0.05,ddb.conflict:0.05,s3.error:0.02`.
 */
import { randomUUID } from 'node:crypto';
import type { DeserializeHandler, DeserializeHandlerArguments, DeserializeHandlerOutput, MetadataBearer } from '@smithy/types';

export type FaultService = 'ddb' | 's3';

/** The faults each service can be made to raise; `throttle` picks one of DynamoDB's three throttling errors. */
export const FAULT_KINDS = {
  ddb: ['throttle', 'ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'conflict', 'error'],
  s3: ['error', 'slowdown'],
} as const satisfies Record<FaultService, readonly string[]>;

/** For each service, each kind's probability per request. */
export type FaultPlan = Partial<Record<FaultService, Partial<Record<string, number>>>>;

/** Reads FAULTS; a malformed entry is a configuration error that names itself. */
export function parseFaults(setting: string | undefined): FaultPlan {
  const plan: FaultPlan = {};
  for (const entry of (setting ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const match = /^(ddb|s3)\.(\w+):(\d*\.?\d+)$/.exec(entry);
    const probability = match ? Number(match[3]) : NaN;
    if (!match || !(FAULT_KINDS[match[1] as FaultService] as readonly string[]).includes(match[2]) || !(probability >= 0 && probability <= 1)) {
      throw new Error(`FAULTS: "${entry}" is not service.kind:probability (kinds: ${Object.entries(FAULT_KINDS).map(([s, kinds]) => kinds.map((k) => `${s}.${k}`).join(', ')).join(', ')})`);
    }
    const service = match[1] as FaultService;
    plan[service] = { ...plan[service], [match[2]]: probability };
  }
  return plan;
}

interface WireAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const DDB_THROTTLES = ['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'] as const;

/** DynamoDB's JSON 1.0 error answers, as the service sends them. */
function dynamoDbAnswer(kind: string, operation: string, requestBody: string): WireAnswer | undefined {
  const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() };
  const error = (statusCode: number, type: string, fields: Record<string, unknown>) => ({ statusCode, headers, body: JSON.stringify({ __type: type, ...fields }) });
  const name = kind === 'throttle' ? DDB_THROTTLES[Math.floor(Math.random() * DDB_THROTTLES.length)] : kind;
  switch (name) {
    case 'ProvisionedThroughputExceededException':
      return error(400, 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', {
        message: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
      });
    case 'ThrottlingException':
      return error(400, 'com.amazon.coral.availability#ThrottlingException', { message: 'Rate of requests exceeds the allowed throughput.' });
    case 'RequestLimitExceeded':
      return error(400, 'com.amazonaws.dynamodb.v20120810#RequestLimitExceeded', {
        message: 'Throughput exceeds the current throughput limit for your account. Please contact AWS Support at https://aws.amazon.com/support request a limit increase',
      });
    case 'conflict': {
      // Only a transaction is cancelled for a conflict; one of its items is the one another transaction holds.
      if (operation !== 'TransactWriteItems') return undefined;
      const count = (JSON.parse(requestBody) as { TransactItems?: unknown[] }).TransactItems?.length ?? 1;
      const conflicted = Math.floor(Math.random() * count);
      const reasons = Array.from({ length: count }, (_, i) => (i === conflicted ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' }));
      return error(400, 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException', {
        Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
        CancellationReasons: reasons,
      });
    }
    case 'error':
      return error(500, 'com.amazonaws.dynamodb.v20120810#InternalServerError', { message: 'Internal server error' });
    default:
      return undefined;
  }
}

/** S3's REST-XML error answers (a HEAD request gets the status alone, as from S3). */
function s3Answer(kind: string, method: string): WireAnswer {
  const [statusCode, code, message] = kind === 'slowdown' ? [503, 'SlowDown', 'Please reduce your request rate.'] : [500, 'InternalError', 'We encountered an internal error. Please try again.'];
  const requestId = randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
  return {
    statusCode,
    headers: { 'content-type': 'application/xml', 'x-amz-request-id': requestId, 'x-amz-id-2': randomUUID() },
    body: method === 'HEAD' ? '' : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${requestId}</RequestId></Error>`,
  };
}

interface WireRequest {
  method: string;
  headers: Record<string, string>;
  body?: unknown;
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  return '{}';
}

/** The middleware: each request draws once per kind; the first kind drawn answers in place of the service. */
export function faultMiddleware(service: FaultService, kinds: Partial<Record<string, number>>, random: () => number = Math.random) {
  return <Output extends MetadataBearer>(next: DeserializeHandler<any, Output>): DeserializeHandler<any, Output> =>
    async (args: DeserializeHandlerArguments<any>): Promise<DeserializeHandlerOutput<Output>> => {
      const request = args.request as WireRequest;
      for (const [kind, probability] of Object.entries(kinds)) {
        if (!probability || random() >= probability) continue;
        const answer =
          service === 'ddb'
            ? dynamoDbAnswer(kind, (request.headers['x-amz-target'] ?? '').split('.').pop() ?? '', bodyText(request.body))
            : s3Answer(kind, request.method);
        if (!answer) continue;
        // A real HTTP answer object: the deserializer reads status, headers and body from it.
        return { response: { statusCode: answer.statusCode, headers: answer.headers, body: Buffer.from(answer.body) } } as DeserializeHandlerOutput<Output>;
      }
      return next(args);
    };
}
