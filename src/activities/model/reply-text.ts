import type { OpenAIProtocol } from '../../config';
import { cutReply } from './json-mode';
import type { JsonMode } from './json-mode';
import type { TextListener } from './provider';

/**
 * What of a streamed completion's text a person may read as it comes, by protocol (design.md, Streaming): a native
 * reply's text as it is; under `#json`, the `reply` string decoded, never a call's JSON; under `#text`, free text, and
 * nothing of a reply that opens as JSON or a code fence (it may be a call, which the workflow reads from the whole).
 * Returns the listener of the raw text deltas; undefined when nothing of this request's reply is shown early.
 */
export function replyTextOf(
  protocol: OpenAIProtocol,
  json: JsonMode | undefined,
  onText: TextListener | undefined,
): TextListener | undefined {
  if (!onText) return undefined;
  if (protocol === 'tools') return onText;
  if (json) return json.name === 'reply_or_call' ? decodedReply(onText) : undefined;
  return protocol === 'text' ? freeText(onText) : undefined;
}

/** The `{"reply": "..."}` branch's string, decoded as it grows; nothing when the reply is the other branch. */
function decodedReply(onText: TextListener): TextListener {
  let raw = '';
  let shown = '';
  let stopped = false;
  return (delta) => {
    if (stopped) return;
    raw += delta;
    const decoded = cutReply(raw);
    if (decoded === undefined) {
      // Still possibly the reply's opening; anything else is a call.
      stopped = !'{"reply":"'.startsWith(raw.replace(/\s+/g, '').slice(0, 10));
      return;
    }
    if (!decoded.startsWith(shown)) {
      stopped = true;
      return;
    }
    if (decoded.length > shown.length) onText(decoded.slice(shown.length));
    shown = decoded;
  };
}

/** Text held until its first visible character shows it is not JSON or a fenced block, then passed on whole. */
function freeText(onText: TextListener): TextListener {
  let held = '';
  let state: 'deciding' | 'free' | 'held' = 'deciding';
  return (delta) => {
    if (state === 'free') return onText(delta);
    if (state === 'held') return;
    held += delta;
    const first = held.trimStart()[0];
    if (first === undefined) return;
    state = first === '{' || first === '`' || first === '[' ? 'held' : 'free';
    if (state === 'free') onText(held);
    held = '';
  };
}
