/**
 * The MIME multipart reader and boundaries live below every layer that reads multipart bodies
 * (the HTTP handlers, the replicator pulling from a peer): ../support/multipart.ts.
 */
export { boundaryOf, MultipartReader, randomBoundary } from '../support/multipart.js';
