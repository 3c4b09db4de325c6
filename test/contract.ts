/**
 * Checks an /api/v1 answer against the OpenAPI document with a JSON Schema
 * validator: the status must be listed for the operation, the body must match
 * its schema and the headers it marks required must be there. Unknown routes
 * must answer the document's Error shape.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildOpenApiDocument } from '#shared/openapi';

const document = buildOpenApiDocument();
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
// One schema holding every component, so the document's own '#/components/schemas/...' references resolve inside it.
ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');

interface ResponseObject {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema: { $ref: string } }>;
}
type Operation = { operationId: string; responses: Record<string, ResponseObject> };

const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), regex: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`), operation })),
);

export class ContractViolation extends Error {}

function check(ref: string, body: unknown, what: string): void {
  const validate = ajv.getSchema(`openapi.json${ref}`);
  if (!validate) throw new ContractViolation(`${what}: no schema ${ref}`);
  if (!validate(body)) throw new ContractViolation(`${what}: the body breaks ${ref}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}

/** Throws a ContractViolation when the answer is not what the document describes. */
export function assertAnswerMatchesDocument(method: string, url: string, status: number, headers: Headers, body: unknown): void {
  const path = new URL(url, 'http://x').pathname;
  if (!path.startsWith('/api/v1/') || path === '/api/v1/openapi.json') return;
  const what = `${method} ${path} answered ${status}`;
  const found = operations.find((operation) => operation.method === method && operation.regex.test(path));
  if (!found) {
    check('#/components/schemas/Error', body, `${what} (no such operation)`);
    return;
  }
  const responses = found.operation.responses;
  const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  if (!response) throw new ContractViolation(`${what}: ${found.operation.operationId} does not list ${status} (it lists ${Object.keys(responses).join(', ')})`);
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (header.required && !headers.has(name)) throw new ContractViolation(`${what}: the required header ${name} is missing`);
  }
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return;
  if (!(headers.get('content-type') ?? '').startsWith('application/json')) throw new ContractViolation(`${what}: content-type ${headers.get('content-type')} is not JSON`);
  check(schema.$ref, body, what);
}

/** Throws a ContractViolation when a webhook's body is not the document's WebhookEvent. */
export function assertWebhookMatchesDocument(body: unknown): void {
  check('#/components/schemas/WebhookEvent', body, 'A webhook delivery');
}
