/**
 * The version of the replication id scheme (./replication-id.ts), written into every checkpoint.
 * A file of its own so the checkpoints need not load the id's computation (and Mango's selector
 * normalization with it) in a server that has not replicated yet.
 */
export const REPLICATION_ID_VERSION = 4;
