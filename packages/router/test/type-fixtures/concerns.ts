// A concern is a block registered by name and applied elsewhere: the types cannot apply it to
// another scope (TypeScript has no type-level call of a generic block), so a typed declaration
// that applies one fails tsc saying so and what to do, instead of its routes going untyped.
import { type AnyScope, draw, type TypedMapper } from '@divan/router';

const comments = (r: TypedMapper<AnyScope, never>) => r.resources('comments');
draw((r) => r.concern('commentable', comments).resources('posts', { concerns: 'commentable' })); // error: cannot follow a concern
draw((r) => r.concern('commentable', comments).resources('posts', (r) => r.concerns('commentable'))); // error: cannot follow a concern
draw((r) => r.namespace('admin', (r) => r.resource('profile', { concerns: ['commentable'] }))); // error: cannot follow a concern

// What the message says to do: a function of your own, called in the resource's block.
const commentable = <S extends AnyScope>(r: TypedMapper<S, never>) => r.resources('comments', { only: ['index'] });
const routes = draw((r) => r.resources('posts', (r) => commentable(r)));
export const typed: string = routes.helpers.postCommentsPath(1);
routes.helpers.commentsPath(); // error: does not exist

// A declaration written as statements returns no mapper: its routes are untyped as they always were.
draw((r) => {
  r.concern('commentable', (r) => r.resources('comments'));
  r.resources('posts', { concerns: 'commentable' });
});
