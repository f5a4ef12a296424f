// A handler module as an application writes one: `import * as posts from './posts.js'`.
export const index = () => 'all posts';
export const show = () => 'one post';
export const shwo = () => 'a typo';
