/** A small blog, shared by the client tests: posts by three authors, comments linking to posts (one to a missing post). */
export const BLOG_DOCS = [
  { _id: 'p1', type: 'post', author: 'bob', date: '2024-01-02', title: 'b', words: 10 },
  { _id: 'p2', type: 'post', author: 'alice', date: '2024-01-01', title: 'A', words: 5 },
  { _id: 'p3', type: 'post', author: 'alice', date: '2024-01-03', title: 'a', words: 7 },
  { _id: 'p4', type: 'post', author: 'carol', date: '2024-01-04', title: 'c', words: 1 },
  { _id: 'c1', type: 'comment', post: 'p1' },
  { _id: 'c2', type: 'comment', post: 'p3' },
  { _id: 'c3', type: 'comment', post: 'gone' },
];
