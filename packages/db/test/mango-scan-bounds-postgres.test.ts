// The scans of ./mango-scan-bounds.test.ts on PostgreSQL, which reads every document of a scan
// (judging the bounds in its statement did not lower the scan's CPU: docs/benchmarks.md, PostgreSQL,
// session 45): the test servers of this process store in a fresh schema of the test PostgreSQL.
process.env.DIVAN_TEST_STORAGE = 'postgres';
await import('./mango-scan-bounds.test.js');
