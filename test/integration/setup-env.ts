import { inject } from 'vitest';
import { resetConfig } from '../../core/config';
import { resetClients } from '../../adapters/aws';

// Test files read and seed the same table, buckets and pool as the API under test.
Object.assign(process.env, inject('stackEnv'));
resetConfig();
resetClients();
