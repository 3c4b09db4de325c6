/**
 * Before `cdk deploy` changes anything (`npm run deploy`, scripts/deploy.ts): does this account's Lambda concurrency
 * hold what the stack reserves? A new account is reportedly limited to 10 concurrent executions (and 3,008 MB a
 * function), so the render function's 200 reserved executions of 10,240 MB would fail half-way through the
 * CloudFormation deployment; here the operator is told first what to ask AWS for, or chooses to deploy with the
 * render function sized to fit, or without it (every render on Batch).
 */

/**
 * AWS keeps this many executions unreserved, for the account's functions without a reservation (Lambda API
 * reference, PutFunctionConcurrency: "leave at least 100 simultaneous executions unreserved").
 */
export const MIN_UNRESERVED = 100;
/** A new account's concurrency, as reported for accounts opened since 2023 (the default quota is 1,000). */
export const NEW_ACCOUNT_CONCURRENCY = 10;
/** The most memory such a new account reportedly allows a function, until its quota grows. */
export const NEW_ACCOUNT_MEMORY_MIB = 3008;
/** Service Quotas' code of Lambda's "Concurrent executions" quota. */
export const CONCURRENCY_QUOTA_CODE = 'L-B99A9384';

/** What the account holds now (GetAccountSettings), and what this stack's deployed functions reserve already. */
export interface AccountConcurrency {
  region: string;
  limit: number;
  unreserved: number;
  /** Reserved by this stack's functions now (0 before its first deployment): a redeploy gives them back first. */
  reservedByStack: number;
}

/** A function of the synthesised stack that reserves concurrency. */
export interface Reservation {
  /** Its logical id. */
  id: string;
  /** What it is, for the operator. */
  label: string;
  reserved: number;
  memoryMiB: number;
  /** The render function: the one the preflight may size or leave out. */
  render: boolean;
}

export type DeployChoice = 'as-is' | 'fit' | 'batch-only';

export type Preflight =
  | { ok: true; summary: string; /** CDK context to deploy with (-c key=value). */ context: Record<string, string> }
  | { ok: false; message: string };

/** The render image's functions, by their RENDER_STEP. */
const STEP_LABELS: Record<string, string> = { function: 'the render function (chunks rendering at once)', probe: 'the media probe', preview: 'the live previews' };

/** A function of the synthesised stack: what it reserves (if anything) and its memory. */
export interface StackFunction {
  id: string;
  label: string;
  reserved?: number;
  memoryMiB: number;
  render: boolean;
}

/** One function from its template properties (or the same properties read off its construct at synth). */
export function stackFunction(id: string, properties: { ReservedConcurrentExecutions?: unknown; MemorySize?: unknown; Description?: unknown; Environment?: { Variables?: Record<string, unknown> } }): StackFunction {
  const step = String(properties.Environment?.Variables?.RENDER_STEP ?? '');
  return {
    id,
    label: STEP_LABELS[step] ?? String(properties.Description ?? id),
    ...(typeof properties.ReservedConcurrentExecutions === 'number' ? { reserved: properties.ReservedConcurrentExecutions } : {}),
    memoryMiB: Number(properties.MemorySize ?? 128),
    render: step === 'function',
  };
}

const reserving = (functions: StackFunction[]): Reservation[] =>
  functions.filter((fn) => fn.reserved !== undefined).map((fn) => ({ id: fn.id, label: fn.label, reserved: fn.reserved!, memoryMiB: fn.memoryMiB, render: fn.render }));

/** The functions of a synthesised template (its JSON) that reserve concurrency. */
export function reservationsOf(template: { Resources?: Record<string, { Type: string; Properties?: Record<string, any> }> }): Reservation[] {
  return reserving(
    Object.entries(template.Resources ?? {})
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([id, resource]) => stackFunction(id, resource.Properties ?? {})),
  );
}

/** What the deployer states about the account (CDK context accountConcurrency, accountFunctionMemoryMiB), and the Region when known. */
export interface StatedAccount {
  region?: string;
  concurrency: number;
  functionMemoryMiB: number;
}

/**
 * The preflight's checks that need no account, run at synth so that plain `cdk deploy` meets them too: the
 * reservations against the stated concurrency (the account read as if nothing else reserved any: the same
 * verdict and message as `npm run deploy` gives for that account), and each function's memory against the
 * stated cap. Every problem, each a message for the operator; none when the stack fits.
 */
export function checkStatedAccount(stated: StatedAccount, functions: StackFunction[]): string[] {
  const problems: string[] = [];
  const verdict = checkAccount({ region: stated.region ?? 'the target Region', limit: stated.concurrency, unreserved: stated.concurrency, reservedByStack: 0 }, reserving(functions));
  if (!verdict.ok) problems.push(verdict.message);
  // A new account's memory cap is in the verdict's message already.
  if (stated.concurrency > NEW_ACCOUNT_CONCURRENCY) {
    for (const fn of functions.filter((candidate) => candidate.memoryMiB > stated.functionMemoryMiB)) {
      problems.push(
        `Not deployed: nothing was changed. ${fn.label} needs ${fn.memoryMiB.toLocaleString('en-US')} MB, and this account allows ${stated.functionMemoryMiB.toLocaleString('en-US')} MB a function (accountFunctionMemoryMiB). ` +
          (fn.render
            ? 'Ask AWS Support to raise the limit, or deploy without the render function (every render on AWS Batch): npm run deploy -- --batch-only'
            : 'Ask AWS Support to raise the limit.'),
      );
    }
  }
  return problems;
}

/** Whether the stack fits the account as synthesised, sized to fit, or without its render function. */
export function checkAccount(account: AccountConcurrency, reservations: Reservation[], choice: DeployChoice = 'as-is'): Preflight {
  const reservedElsewhere = Math.max(0, account.limit - account.unreserved - account.reservedByStack);
  const room = account.limit - reservedElsewhere - MIN_UNRESERVED;
  const need = reservations.reduce((sum, r) => sum + r.reserved, 0);
  const render = reservations.find((r) => r.render);
  const rest = need - (render?.reserved ?? 0);
  const where = `This account allows ${account.limit} concurrent Lambda executions in ${account.region}; ${reservedElsewhere} are reserved by other functions and AWS keeps ${MIN_UNRESERVED} unreserved, so this stack may reserve ${Math.max(0, room)}.`;
  const listed = reservations.map((r) => `${r.reserved} for ${r.label}`).join(', ');
  const newAccount = account.limit <= NEW_ACCOUNT_CONCURRENCY;
  const memory = Math.max(0, ...reservations.map((r) => r.memoryMiB));

  if (need <= room && !newAccount) return { ok: true, summary: `${where} It reserves ${need} (${listed}).`, context: {} };
  if (choice === 'fit' && render && rest < room && !newAccount) {
    const fitted = room - rest;
    return { ok: true, summary: `${where} The render function reserves ${fitted} instead of ${render.reserved}: at most ${fitted} chunks render at once.`, context: { renderFunctionConcurrency: String(fitted) } };
  }
  if (choice === 'batch-only' && rest <= room && !newAccount) {
    return { ok: true, summary: `${where} Without the render function the stack reserves ${rest}: every render runs on AWS Batch.`, context: { renderFunctionConcurrency: '0' } };
  }
  const wanted = reservedElsewhere + need + MIN_UNRESERVED;
  const lines = [
    `Not deployed: nothing was changed. ${where} The stack reserves ${need}: ${listed}.`,
    `Ask AWS for more: Service Quotas, AWS Lambda, "Concurrent executions" (quota code ${CONCURRENCY_QUOTA_CODE}) in ${account.region}, at least ${wanted}.`,
  ];
  if (newAccount && memory > NEW_ACCOUNT_MEMORY_MIB) {
    lines.push(`A new account's functions are also reportedly limited to ${NEW_ACCOUNT_MEMORY_MIB.toLocaleString('en-US')} MB, and the render function needs ${memory.toLocaleString('en-US')} MB: the concurrency request raises that limit too; ask AWS Support if it does not.`);
  }
  if (render && rest < room && !newAccount) lines.push(`Or deploy now with the render function sized to fit (${room - rest} chunks at once): npm run deploy -- --fit`);
  if (render && rest <= room && !newAccount) lines.push('Or deploy without the render function (every render on AWS Batch, slower to start): npm run deploy -- --batch-only');
  return { ok: false, message: lines.join('\n') };
}
