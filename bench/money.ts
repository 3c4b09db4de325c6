/**
 * Benchmark: the money invariants, at scale. Runs the model-based property test
 * (test/integration/money-properties.test.ts) against a fresh local stack with many
 * more generated runs than CI does, shows its progress, and prints runs, commands
 * executed, violations and time; a violation prints fast-check's shrunk sequence and
 * the seed and path that replay it.
 *
 *   npm run bench:money [-- --runs N] [-- --seed S]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10000' }, seed: { type: 'string', default: String(Date.now() % 2 ** 31) } } });
const runs = Number(values.runs);
const seed = Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) throw new Error('--runs and --seed take whole numbers');

const dir = mkdtempSync(join(tmpdir(), 'bench-money-'));
const summaryFile = join(dir, 'summary.json');
const read = () => (existsSync(summaryFile) ? (JSON.parse(readFileSync(summaryFile, 'utf8')) as Record<string, any>) : undefined);

console.log(`Money invariants: ${runs} generated runs, seed ${seed} (the local stack starts first)`);
const started = performance.now();
const progress = setInterval(() => {
  const now = read();
  if (now) console.log(`  ${now.runs} runs, ${now.commands} commands, ${((performance.now() - started) / 1000).toFixed(0)} s`);
}, 15_000);
const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'integration', '--silent', '--testTimeout', '0', 'test/integration/money-properties.test.ts', '-t', 'interleave'], {
  env: { ...process.env, MONEY_RUNS: String(runs), MONEY_SEED: String(seed), MONEY_SUMMARY: summaryFile },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
clearInterval(progress);
const summary = read();
rmSync(dir, { recursive: true, force: true });
if (!summary?.done) throw new Error(`The property test ended without a summary (exit code ${code})`);

const rows: [string, string][] = [
  ['runs', String(summary.runs)],
  ['commands executed', String(summary.commands)],
  ['violations', String(summary.violations)],
  // A run's length varies with the model (steps whose precondition fails are skipped): the cost of a command compares across versions.
  ['time', `${summary.seconds.toFixed(1)} s (${((summary.seconds / summary.runs) * 1000).toFixed(0)} ms a run, ${((summary.seconds / summary.commands) * 1000).toFixed(1)} ms a command)`],
  ['seed', String(summary.seed)],
];
console.log('\n| figure | value |\n|---|---|');
for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
if (summary.counterexample) console.log(`\nCounterexample (add it to the examples in the test file):\n${summary.counterexample}`);
process.exitCode = summary.violations ? 1 : 0;
