/** A value quoted for a visibility query; agent ids need no escaping, but quote defensively. */
export function visibilityString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
