/**
 * Divan's one addition to Fauxton's page: a notice on its replication pages that server-side
 * replication documents are not run here yet (`POST /_replicate` is). Fauxton has nothing to show a server's message when those
 * pages open (it reads `/_replicator/_all_docs` and `/_scheduler/*` and turns any error into an
 * empty list), so the notice is a small script of Divan's, served beside Fauxton's files at
 * `/_utils/divan-notice.js` and named by one `<script>` tag added to the `index.html` served
 * from memory (Fauxton's files on disk stay as fetched). The CSP of `/_utils` allows it: a
 * same-origin script, no inline code. Submitting the "new replication" form shows the same
 * reason through Fauxton's own notification (documents/replicator-db.ts).
 *
 * The script puts an `.alert` (Fauxton's warning box) first in `.replication__page`, the
 * container of all three replication tabs and the form, whenever the route is `#/replication…`,
 * and again after Fauxton re-renders the page (a MutationObserver: React leaves a node it did
 * not make where it is, and removes it with the page).
 */
import { REPLICATION_UNAVAILABLE } from '../documents/replicator-db.js';

export const NOTICE_PATH = 'divan-notice.js';

export const NOTICE_SCRIPT = `// Divan (not Fauxton): the replication pages say that replication documents are not run yet.
(function () {
  'use strict';
  var ROUTE = /^#\\/?replication(?:\\/|$)/;
  var notice = document.createElement('div');
  notice.id = 'divan-replication-notice';
  notice.className = 'alert';
  notice.setAttribute('role', 'status');
  notice.textContent = ${JSON.stringify(REPLICATION_UNAVAILABLE)};
  // The background of Fauxton's .alert, darker text for contrast; full width in the centred column.
  Object.assign(notice.style, {
    alignSelf: 'stretch',
    margin: '0 20px 20px',
    padding: '10px 15px',
    border: '1px solid #faebcc',
    background: '#fcf8e3',
    color: '#8a6d3b',
  });
  function place() {
    if (!ROUTE.test(location.hash)) {
      if (notice.parentNode !== null) notice.remove();
      return;
    }
    var page = document.querySelector('.replication__page');
    if (page !== null && page.firstChild !== notice) page.insertBefore(notice, page.firstChild);
  }
  new MutationObserver(place).observe(document.body, { childList: true, subtree: true });
  window.addEventListener('hashchange', place);
  place();
})();
`;

/** Fauxton's `index.html` with the notice's script after its own (at the end of the body). */
export function withNotice(indexHtml: Buffer): Buffer {
  const html = indexHtml.toString('utf8');
  const tag = `<script type="text/javascript" src="${NOTICE_PATH}"></script>`;
  const end = html.lastIndexOf('</body>');
  return Buffer.from(end === -1 ? html + tag : html.slice(0, end) + tag + html.slice(end), 'utf8');
}
