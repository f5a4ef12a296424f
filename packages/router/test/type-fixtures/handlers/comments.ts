// A handler module whose every action a route declares.
export const index = () => 'all comments';
