/**
 * The name CouchDB gives a Mango index created without `name` and/or `ddoc`: the lower-case hex
 * SHA-1 of `term_to_binary({Def, lists:usort(Opts)}, [{minor_version, 1}])`, where `Def` is the
 * request's `index` object and `Opts` its options with CouchDB's defaults (`auto_name`,
 * `db_default`, `<<"json">>`, `2`). Reproducing it gives the same design document ids as
 * CouchDB for the same request, so an index created twice is found, not duplicated.
 */
import { createHash } from 'node:crypto';
import { type JsonValue, TermWriter } from '../json/index.js';

export interface IndexNameOptions {
  ddoc?: string;
  name?: string;
  partitioned?: boolean;
  type?: string;
  w?: number;
}

export function autoIndexName(def: JsonValue, options: IndexNameOptions): string {
  const writer = new TermWriter();
  writer.byte(131).tuple(2).value(def);
  // lists:usort orders these 2-tuples by their atom: ddoc < def < name < partitioned < type < w.
  writer.list(6);
  const option = (atom: string, write: () => void) => {
    writer.tuple(2).atom(atom);
    write();
  };
  option('ddoc', () => (options.ddoc === undefined ? writer.atom('auto_name') : writer.binary(options.ddoc)));
  option('def', () => writer.value(def));
  option('name', () => (options.name === undefined ? writer.atom('auto_name') : writer.binary(options.name)));
  option('partitioned', () =>
    options.partitioned === undefined ? writer.atom('db_default') : writer.atom(String(options.partitioned)),
  );
  option('type', () => writer.binary(options.type ?? 'json'));
  option('w', () => writer.integer(options.w ?? 2));
  writer.nil();
  return createHash('sha1').update(writer.finish()).digest('hex');
}
