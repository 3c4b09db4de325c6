import { inject } from 'vitest';
import { resetConfig } from '#core/config';
import { composeServer, resetClients } from '#composition/server';

// What the journeys do in-process (the stale-job sweep, creating users, reading records)
// talks to the same table, buckets and pool as the API the browser uses.
Object.assign(process.env, inject('stackEnv'));
// web/scripts/browser.ts reads BASE_URL when it is first imported, after this file.
process.env.BASE_URL = inject('webUrl');
resetConfig();
resetClients();
composeServer();
