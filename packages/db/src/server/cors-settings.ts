/** CORS settings (CouchDB's `[chttpd] enable_cors` and `[cors]`), applied by http/cors.ts. */
export interface CorsOptions {
  /** Allowed origins (`https://app.example`), or `'*'` for any. */
  origins: readonly string[] | '*';
  /** Send `Access-Control-Allow-Credentials: true` (cookies, Basic auth from pages). Default false. */
  credentials?: boolean;
  /** Default CouchDB's: GET, HEAD, POST, PUT, DELETE, TRACE, CONNECT, COPY, OPTIONS. */
  methods?: readonly string[];
  /** Request headers allowed beyond CouchDB's defaults. */
  headers?: readonly string[];
  /** Seconds a preflight answer may be cached (default 600). */
  maxAge?: number;
}
