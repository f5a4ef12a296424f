/** Text matched as itself inside a RegExp source (`/` escaped too, as Journey writes it). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
