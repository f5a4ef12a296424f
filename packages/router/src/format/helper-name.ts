/**
 * The JavaScript name of a route helper: Rails' `<name>_path` / `<name>_url` in camelCase.
 *
 *   camelHelperName('edit_post_comment', 'Path') // 'editPostCommentPath'
 *   camelHelperName('root', 'Url')               // 'rootUrl'
 *   camelHelperName('v1_keys', 'Path')           // 'v1KeysPath'
 *
 * Words are separated by `_` (or `-`); empty words (leading, trailing or doubled separators) are
 * dropped; the first word is kept as written, each later word gets its first letter upper-cased.
 */
export function camelHelperName(routeName: string, suffix: 'Path' | 'Url'): string {
  const words = routeName.split(/[_-]+/).filter((w) => w.length > 0);
  const head = words.length > 0 ? words[0] : '';
  const tail = words.slice(1).map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return head + tail.join('') + suffix;
}
