import { inject } from 'vitest';
import { resetConfig } from '../../lambdas/lib/config';
import { resetClients } from '../../lambdas/lib/aws';

// Test files read and seed the same table, buckets and pool as the API under test.
Object.assign(process.env, inject('stackEnv'));
resetConfig();
resetClients();
