/**
 * Where `_all_docs` (and `_design_docs`, `_local_docs`, `_all_dbs`) answers the same parameters
 * differently from a view. CouchDB parses both into one #mrargs (`_all_docs` is a map-only view
 * over the by-id index); the differences are chttpd_db's and chttpd_view's own checks around that
 * parser, and what validate_args and check_range do for a design-document view only.
 */
import type { Source } from './params.js';

export interface EndpointRules {
  /**
   * chttpd's bad_request when `keys` is not an array: in a POST body (views and `_all_docs` each
   * in their own words), and for `_all_docs` in a GET query string too (a view leaves that to
   * validate_args' query_parse_error).
   */
  keysNotArray: { body: string; get?: string };
  /** chttpd_view refuses `queries` in the body of a plain view URL (it has `/queries` for that). */
  refusesQueries: boolean;
  /** `keys` in both the POST body and the query string: `_all_docs` refuses it; for a view the query string wins. */
  refusesKeysTwice: boolean;
  /** Where a decoded string is read as an integer's text, as in a URL (`limit: "5"`). */
  textIntegers: ReadonlySet<Source>;
  /** 3.3.1+ views: a one-element `keys` is a key (start = end), so reduce views take it without grouping. */
  oneKeyIsKey: boolean;
  /** check_range: a reversed key range is a 400 on a view; `_all_docs` answers it with no rows. */
  checksRange: boolean;
  /** validate_args' refusal of `partition` by a design document or database that is not partitioned. */
  partitionRefusal: string;
}

export const VIEW_RULES: EndpointRules = {
  keysNotArray: { body: '`keys` member must be an array.' },
  refusesQueries: true,
  refusesKeysTwice: false,
  // Design-document defaults (a Divan extension) may spell an integer as text, as in a URL.
  textIntegers: new Set(['ddoc']),
  oneKeyIsKey: true,
  checksRange: true,
  partitionRefusal: '`partition` parameter is not supported in this design doc',
};

export const ALL_DOCS_RULES: EndpointRules = {
  keysNotArray: { body: '`keys` body member must be an array.', get: '`keys` parameter must be an array.' },
  refusesQueries: false,
  refusesKeysTwice: true,
  textIntegers: new Set(['body', 'member']),
  oneKeyIsKey: false,
  checksRange: false,
  partitionRefusal: '`partition` parameter is not supported on this db',
};
