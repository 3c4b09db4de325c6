/** /developers: the render API's reference, rendered from its OpenAPI document, with curl examples. */
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { curlExamples, VERIFY_SIGNATURE_EXAMPLE, type CurlExample } from '#shared/openapi';
import { Notice, PageLoading } from '../components/ui';
import { developerApi, type OpenApiDocument } from '../data/developer-api';

/** Inline `code` spans of the document's prose as code. */
const prose = (text: string) => text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part));

function curl(example: CurlExample, origin: string): string {
  const lines = [`curl -X ${example.method} ${origin}${example.path} \\`, '  -H "Authorization: Bearer $CLOUD_RENDER_API_KEY"'];
  if (example.body !== undefined) {
    lines[lines.length - 1] += ' \\';
    lines.push('  -H "Content-Type: application/json" \\', `  -d '${JSON.stringify(example.body)}'`);
  }
  return lines.join('\n');
}

export default function ApiDocsPage() {
  const [doc, setDoc] = useState<OpenApiDocument | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    developerApi.openApi().then(setDoc, (failure: Error) => setError(failure.message));
  }, []);
  if (error) return <section className="container page"><Notice kind="error" role="alert">{error}</Notice></section>;
  if (!doc) return <PageLoading label="Loading the API reference..." />;
  const origin = window.location.origin;
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), ...operation })));

  return (
    <section className="container page">
      <h1>{doc.info.title}</h1>
      <p>{prose(doc.info.description)}</p>
      <p>
        Create a key on your <Link to="/profile">account page</Link>. The machine-readable document is at <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a> (OpenAPI {`3.1`}).
        To render many variants at once from a spreadsheet, use a <Link to="/batch/1">CSV batch</Link>.
      </p>
      {operations.map((operation) => {
        const example = curlExamples[operation.operationId];
        const ref = operation.requestBody?.content['application/json'].schema.$ref.split('/').pop();
        const schema = ref ? doc.components.schemas[ref] : undefined;
        return (
          <article key={`${operation.method} ${operation.path}`} className="panel" style={{ marginBottom: 18 }} aria-label={`${operation.method} ${operation.path}`}>
            <h2 style={{ fontSize: '1.1rem' }}>
              <code>{operation.method} {operation.path}</code>
            </h2>
            <p>{operation.summary}</p>
            {schema?.properties && (
              <div className="table-wrap">
                <table className="ledger" aria-label={`${operation.operationId} body`}>
                  <thead>
                    <tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Rule</th></tr>
                  </thead>
                  <tbody>
                    {Object.entries(schema.properties).map(([field, property]) => (
                      <tr key={field}>
                        <td><code>{field}</code></td>
                        <td>{property.type ?? 'see document'}</td>
                        <td>{schema.required?.includes(field) ? 'yes' : 'no'}</td>
                        <td>
                          {property.enum ? `one of ${property.enum.join(', ')}` : ''}
                          {property.minimum !== undefined ? `${property.minimum} to ${property.maximum}` : ''}
                          {property.maxLength !== undefined ? `at most ${property.maxLength} characters` : ''}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {example && <pre className="code-block" tabIndex={0} aria-label={`curl example for ${operation.operationId}`} style={{ overflowX: 'auto' }}><code>{curl(example, origin)}</code></pre>}
            <details>
              <summary>Answers</summary>
              <ul aria-label={`${operation.operationId} answers`}>
                {Object.entries(operation.responses).map(([status, response]) => (
                  <li key={status}><code>{status}</code> {prose(response.description)}</li>
                ))}
              </ul>
            </details>
          </article>
        );
      })}
      {doc.webhooks && (
        <article className="panel" style={{ marginBottom: 18 }} aria-label="Webhooks">
          <h2 style={{ fontSize: '1.1rem' }}>Webhooks</h2>
          <ul>
            {Object.entries(doc.webhooks).map(([event, { post }]) => (
              <li key={event}><code>{event}</code>: {post.summary}</li>
            ))}
          </ul>
          <p>
            Each is POSTed as JSON to the render&apos;s <code>webhook_url</code> with the headers <code>Render-Signature</code> and <code>Render-Event-Id</code>; anything but a 2xx within 10 s is retried after 1, 5, 30, 120 and 360 minutes, then every 720 minutes for a day. Verify the signature with your signing secret (account page) before trusting the body:
          </p>
          <pre className="code-block" tabIndex={0} aria-label="Verifying a webhook signature" style={{ overflowX: 'auto' }}><code>{VERIFY_SIGNATURE_EXAMPLE}</code></pre>
        </article>
      )}
      <article className="panel" style={{ marginBottom: 18 }} aria-label="Command line and typed client">
        <h2 style={{ fontSize: '1.1rem' }}>From the command line, or a typed client</h2>
        <p>
          In a checkout of the service, <code>npm run render</code> prints the price, starts the render, follows it with a progress bar (frames done, time left) and downloads its files:
        </p>
        <pre className="code-block" tabIndex={0} aria-label="The render command" style={{ overflowX: 'auto' }}><code>{`export CLOUD_RENDER_API_KEY=rk_live_...
export CLOUD_RENDER_URL=${origin}
npm run render -- --scene text-animation --text "Hello" --still --wait --out renders`}</code></pre>
        <p>
          The command is built on <code>client/client.ts</code>: a TypeScript client whose types are generated from this document (<code>npm run client:generate</code>), with <code>createRender</code>, <code>waitForRender</code> (backing off on <code>Retry-After</code>) and <code>download</code>.
        </p>
      </article>
    </section>
  );
}
