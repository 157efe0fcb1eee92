// Fake verifier worker for test/pow/verifier-pool.test.ts: dies before it reports ready.
throw new Error('worker crashed while loading');
