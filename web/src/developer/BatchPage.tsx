/**
 * /batch/:sceneId: many renders of one scene from a CSV. The CSV is read here
 * (columns are the scene's variable names), every row is checked with the job's
 * own schema and priced with the calculator the server charges with; after the
 * user confirms the total, one request makes one job per row.
 */
import { useEffect, useMemo, useState, type ChangeEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { getScene, requiredUploadKind, scenes } from '#shared/catalogue';
import { parseCsv, CsvError } from '#shared/csv';
import { batchColumns, MAX_BATCH_ROWS, renderSettingsRequest, rowToRenderSettings, toJobRequest } from '#shared/render-api';
import { planRender } from '#shared/pricing';
import type { BatchView, JobView } from '#shared/api-types';
import { newIdempotencyKey } from '../lib/idempotency';
import { Notice } from '../components/ui';
import { formatCredits } from '../components/Layout';
import { developerApi } from '../data/developer-api';

interface CheckedRow {
  values: Record<string, string>;
  settings?: unknown;
  price?: number;
  problem?: string;
}

function checkRow(scene: NonNullable<ReturnType<typeof getScene>>, values: Record<string, string>, base: { mode: string; resolutionX: number; resolutionY: number }): CheckedRow {
  const settings = rowToRenderSettings(scene, values, base);
  try {
    const job = toJobRequest(renderSettingsRequest.parse(settings));
    return { values, settings, price: planRender(scene, { mode: job.mode, resolutionX: job.resolutionX, resolutionY: job.resolutionY }, false).finalPrice };
  } catch (error) {
    const issue = (error as { issues?: { message: string; path: PropertyKey[] }[] }).issues?.[0];
    return { values, problem: issue ? `${issue.path.join('.') || 'row'}: ${issue.message}` : (error as Error).message };
  }
}

export default function BatchPage() {
  const { sceneId } = useParams();
  const navigate = useNavigate();
  const scene = getScene(Number(sceneId));
  const [mode, setMode] = useState(scene?.defaultMode ?? 'still');
  const [resolution, setResolution] = useState({ x: '640', y: '360' });
  const [csv, setCsv] = useState<{ columns: string[]; rows: Record<string, string>[] } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [submitting, setSubmitting] = useState(false);
  const [started, setStarted] = useState<{ batch: BatchView; jobs: JobView[] } | undefined>();
  const [idempotencyKey] = useState(newIdempotencyKey);
  // Job history links a batch here by its id, to follow it and download its ZIP.
  const [params] = useSearchParams();
  const existingBatch = params.get('batch');
  useEffect(() => {
    if (existingBatch) void developerApi.batch(existingBatch).then(setStarted, (failure: Error) => setError(failure.message));
  }, [existingBatch]);

  const checked = useMemo(() => {
    const base = { mode, resolutionX: Number(resolution.x), resolutionY: Number(resolution.y) };
    return scene && csv ? csv.rows.map((row) => checkRow(scene, row, base)) : [];
  }, [scene, csv, mode, resolution]);
  const total = Number(checked.reduce((sum, row) => sum + (row.price ?? 0), 0).toFixed(2));
  const problems = checked.filter((row) => row.problem).length;

  // Follows the batch until every job has finished.
  useEffect(() => {
    if (!started || started.jobs.every((job) => job.status === 'done' || job.status === 'failed')) return;
    const timer = setTimeout(() => void developerApi.batch(started.batch.batchId).then(setStarted, () => {}), 3000);
    return () => clearTimeout(timer);
  }, [started]);

  if (!scene) return <section className="container page"><Notice kind="error">Scene not found.</Notice></section>;
  const allowed = batchColumns(scene);

  const readFile = async (event: ChangeEvent<HTMLInputElement>) => {
    setError(undefined);
    setCsv(undefined);
    const file = event.target.files?.[0];
    if (!file) return;
    try {
      const parsed = parseCsv(await file.text());
      const unknown = parsed.columns.filter((column) => !allowed.includes(column));
      if (unknown.length) throw new CsvError(`Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. This scene's columns are: ${allowed.join(', ')}.`);
      if (parsed.rows.length === 0) throw new CsvError('The CSV has no rows.');
      if (parsed.rows.length > MAX_BATCH_ROWS) throw new CsvError(`A batch has at most ${MAX_BATCH_ROWS} rows; this CSV has ${parsed.rows.length}.`);
      setCsv(parsed);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const confirm = async () => {
    setSubmitting(true);
    setError(undefined);
    try {
      setStarted(await developerApi.createBatch(checked.map((row) => row.settings), idempotencyKey));
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setSubmitting(false);
    }
  };

  const download = async () => {
    try {
      const archive = await developerApi.batchArchive(started!.batch.batchId);
      window.location.assign(archive.url);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  if (started) {
    const done = started.jobs.filter((job) => job.status === 'done').length;
    return (
      <section className="container page">
        <h1>Batch of {started.batch.rows} renders</h1>
        {error && <Notice kind="error" role="alert">{error}</Notice>}
        <p role="status">{done} of {started.batch.rows} done. Each render also appears in your <Link to="/job-history">job history</Link>.</p>
        <ol>
          {started.jobs.map((job) => <li key={job.jobId}>{job.custom_text ?? job.options} — {job.status}</li>)}
        </ol>
        <button type="button" className="btn btn-primary" disabled={done < started.batch.rows} onClick={() => void download()}>Download all (ZIP)</button>
      </section>
    );
  }

  return (
    <section className="container page">
      <h1>Batch from CSV: {scene.title}</h1>
      <p>
        One render per row. The CSV's first line names its columns, among: <code>{allowed.join(', ')}</code>. Settings left out of a row come from the fields below.
      </p>
      <label>
        Scene{' '}
        <select className="input" value={scene.id} onChange={(event) => navigate(`/batch/${event.target.value}`)}>
          {scenes.filter((s) => !requiredUploadKind(s)).map((s) => <option key={s.id} value={s.id}>{s.title}</option>)}
        </select>
      </label>
      {requiredUploadKind(scene) ? (
        <Notice kind="warning">This scene needs a file for each render; render it through the API with one upload per render.</Notice>
      ) : (
        <>
          <div className="row-actions">
            <label>Mode <select className="input" value={mode} onChange={(event) => setMode(event.target.value as typeof mode)}>{scene.supportsModes.map((m) => <option key={m}>{m}</option>)}</select></label>
            <label>Width <input className="input" inputMode="numeric" value={resolution.x} onChange={(event) => setResolution({ ...resolution, x: event.target.value })} /></label>
            <label>Height <input className="input" inputMode="numeric" value={resolution.y} onChange={(event) => setResolution({ ...resolution, y: event.target.value })} /></label>
          </div>
          <label>
            CSV file <input type="file" accept=".csv,text/csv" onChange={(event) => void readFile(event)} />
          </label>
          {error && <Notice kind="error" role="alert">{error}</Notice>}
          {csv && (
            <>
              <div className="table-wrap">
                <table className="ledger" aria-label="Batch rows">
                  <thead>
                    <tr>
                      <th scope="col">Row</th>
                      {csv.columns.map((column) => <th key={column} scope="col">{column}</th>)}
                      <th scope="col" className="num">Price</th>
                    </tr>
                  </thead>
                  <tbody>
                    {checked.map((row, index) => (
                      <tr key={index}>
                        <td>{index + 1}</td>
                        {csv.columns.map((column) => <td key={column}>{row.values[column]}</td>)}
                        <td className="num">{row.problem ? <span role="alert">{row.problem}</span> : formatCredits(row.price!)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <p>
                <strong>Total: {formatCredits(total)}</strong> for {checked.length} renders, paid with your credits, one debit per render.
              </p>
              <button type="button" className="btn btn-primary" disabled={problems > 0 || submitting} onClick={() => void confirm()}>
                Confirm and render {checked.length} jobs
              </button>
            </>
          )}
        </>
      )}
    </section>
  );
}
