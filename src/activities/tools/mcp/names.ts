import { createHash } from 'node:crypto';

/** The providers' longest tool name (Anthropic and OpenAI alike). */
export const MAX_TOOL_NAME_CHARS = 64;

const HASH_CHARS = 8;

function sanitized(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/gu, '_');
}

function digest(text: string): string {
  return createHash('sha256').update(text, 'utf-8').digest('hex').slice(0, HASH_CHARS);
}

/** The sanitized name cut to leave room for `_` and a hash: 64 characters in all. */
function hashed(server: string, tool: string, salt = ''): string {
  const head = sanitized(server, tool).slice(0, MAX_TOOL_NAME_CHARS - HASH_CHARS - 1);
  return `${head}_${digest(salt === '' ? tool : `${tool}\0${salt}`)}`;
}

/**
 * The name a model is offered for `tool` of `server`: `SERVER__TOOL`, every character outside `A-Za-z0-9_-`
 * replaced by `_`. A name over 64 characters keeps its first 55, then `_` and the first 8 hex digits of the
 * SHA-256 of the tool's own name. {@link toolNamesOf} also settles collisions between one server's tools.
 */
export function toolNameOf(server: string, tool: string): string {
  const name = sanitized(server, tool);
  return name.length <= MAX_TOOL_NAME_CHARS ? name : hashed(server, tool);
}

/**
 * Offered names for all the tools of one server, by the tool's own name. Tools whose {@link toolNameOf} names
 * collide (`a.b` and `a/b` both give `a_b`) all take the hashed form, so the rule depends on the set of names,
 * never on the order the server lists them. Should a hashed name still meet another (a chance of 1 in 4 billion),
 * the later of the two tools by name hashes again with a counter appended to its name until it is unique.
 */
export function toolNamesOf(server: string, tools: readonly string[]): Map<string, string> {
  const unique = [...new Set(tools)].sort();
  const plain = new Map(unique.map((tool) => [tool, toolNameOf(server, tool)]));
  const counts = new Map<string, number>();
  for (const name of plain.values()) counts.set(name, (counts.get(name) ?? 0) + 1);
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const collided: string[] = [];
  for (const tool of unique) {
    const name = plain.get(tool)!;
    if (counts.get(name)! > 1) collided.push(tool);
    else {
      names.set(tool, name);
      taken.add(name);
    }
  }
  for (const tool of collided) {
    let name = hashed(server, tool);
    for (let salt = 1; taken.has(name); salt++) name = hashed(server, tool, String(salt));
    names.set(tool, name);
    taken.add(name);
  }
  return names;
}
