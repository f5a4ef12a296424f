// Declaration mistakes tsc reports (draw() refuses them too: declaration-mistakes.test.ts).
// A line ending in `// error: text` must fail with a message holding that text; no other line may.
import { draw } from '@divan/router';

const ok = () => 'ok';

draw((r) => r.resources('posts', { only: ['index', 'show'], except: 'show', middleware: [ok] }));
draw((r) => r.resources('posts', { only: ['indx'] })); // error: "indx"
draw((r) => r.resource('profile', { except: 'destory' })); // error: "destory"
draw((r) => r.resources('posts', { onyl: ['index'] })); // error: did you mean 'only'?
draw((r) => r.resources('posts', { shalow: true })); // error: did you mean 'shallow'?
draw((r) => r.resources('posts', { path_names: { new: 'nuevo' } })); // error: did you mean 'pathNames'?
draw((r) => r.scope({ moduel: 'api' }, (r) => r)); // error: did you mean 'module'?
draw((r) => r.namespace('admin', { shallow_path: 'x' }, (r) => r)); // error: did you mean 'shallowPath'?
draw((r) => r.get('photos', { to: 'photos#index', page: 1, path2: 'x' }));
draw((r) => r.get('photos/:id', { to: 'photos#show', id: /\d+/, middleware: ok }));
draw((r) => r.match('a/b', { via: 'gett' })); // error: "gett"
draw((r) => r.match('a/b', { via: ['get', 'pots'] })); // error: "pots"
draw((r) => r.match('a/b', { via: ['get', 'POST', 'copy'] }));
draw((r) => r.get('photos/:id', { to: 'photos#show', constraints: { id: '\\d+' } })); // error: write the RegExp
draw((r) => r.get('photos/:id', { to: 'photos#show', constraints: { id: /\d+/, format: 'json' } }));
draw((r) => r.get('photos', { to: 'photos#index', constraints: { subdomain: 'api' } })); // error: request-based
