import { CouchError } from '../errors.js';

/**
 * Design-document languages CouchDB has query servers for that Divan does not run: the Erlang
 * native query server (`[native_query_servers]`, off by default in CouchDB) and CoffeeScript
 * (couchjs compiled it in CouchDB 1.x and 2.x). A design document in one of them saves as in
 * CouchDB (so replication carries it), but running one of its functions is refused with a 400
 * naming the language, where CouchDB without that query server answers 500.
 */
const NOT_RUN: Record<string, string> = {
  erlang: "Erlang design functions (CouchDB's native query server) are not supported: Divan runs JavaScript",
  coffeescript: 'CoffeeScript design functions are not supported: Divan runs JavaScript',
};

/** Throws the 400 for a language Divan knows and does not run; returns for any other. */
export function refuseUnsupportedLanguage(language: string): void {
  const reason = NOT_RUN[language.toLowerCase()];
  if (reason !== undefined) throw new CouchError('unknown_query_language', `${language}: ${reason}`, 400);
}
