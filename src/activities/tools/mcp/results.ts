import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Observation } from '../../../core/tools/observation';

/** Binary content named, sized and fingerprinted, without its data. */
export interface Attachment {
  type: string;
  mime_type: string;
  bytes: number;
  sha256: string;
  uri?: string;
}

interface Binary {
  type: string;
  mimeType: string;
  data: Buffer;
  uri?: string;
}

const OCTET_STREAM = 'application/octet-stream';

type Part = { text: string } | { binary: Binary };

// The server is untrusted: its items are read defensively, whatever the SDK's schema let through.
function partOf(item: Record<string, unknown>): Part {
  const string = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  switch (item.type) {
    case 'text':
      return { text: string(item.text) ?? '' };
    case 'image':
    case 'audio':
      return {
        binary: {
          type: item.type,
          mimeType: string(item.mimeType) ?? OCTET_STREAM,
          data: Buffer.from(string(item.data) ?? '', 'base64'),
        },
      };
    case 'resource': {
      const resource = (typeof item.resource === 'object' && item.resource !== null ? item.resource : {}) as Record<
        string,
        unknown
      >;
      const text = string(resource.text);
      if (text !== undefined) return { text };
      const uri = string(resource.uri);
      return {
        binary: {
          type: 'resource',
          mimeType: string(resource.mimeType) ?? OCTET_STREAM,
          data: Buffer.from(string(resource.blob) ?? '', 'base64'),
          ...(uri !== undefined ? { uri } : {}),
        },
      };
    }
    case 'resource_link': {
      const name = string(item.name);
      return { text: `resource link: ${string(item.uri) ?? ''}${name !== undefined ? ` (${name})` : ''}` };
    }
    default:
      return { text: `[unsupported content of type ${JSON.stringify(String(item.type))}]` };
  }
}

function attachmentOf(binary: Binary): Attachment {
  return {
    type: binary.type,
    mime_type: binary.mimeType,
    bytes: binary.data.byteLength,
    sha256: createHash('sha256').update(binary.data).digest('hex'),
    ...(binary.uri !== undefined ? { uri: binary.uri } : {}),
  };
}

/**
 * A tool result as an observation. Text (text items, embedded text resources, resource links) is joined with
 * newlines; `structuredContent` is kept as `structured`, or is the result when there is no text. A lone image, audio
 * or blob item becomes a binary observation (`encoding: 'base64'`, which the observation store keeps as bytes);
 * binary items among others become `attachments`, described without their data. `isError` gives `ok: false`.
 * Nothing is capped: the caller offloads large observations.
 */
export function observationOf(result: CallToolResult): Observation {
  const content = Array.isArray(result.content) ? (result.content as unknown as Record<string, unknown>[]) : [];
  const parts = content.filter((item) => typeof item === 'object' && item !== null).map(partOf);
  const texts = parts.flatMap((part) => ('text' in part ? [part.text] : []));
  const binaries = parts.flatMap((part) => ('binary' in part ? [part.binary] : []));
  const structured = result.structuredContent;
  const keepStructured = structured !== undefined ? { structured } : {};
  if (result.isError === true) {
    const error = texts.join('\n');
    return { ok: false, error: error === '' ? 'the tool reported an error' : error, ...keepStructured };
  }
  const only = binaries.length === 1 && parts.length === 1 ? binaries[0] : undefined;
  if (only !== undefined) {
    return {
      ok: true,
      result: only.data.toString('base64'),
      encoding: 'base64',
      mime_type: only.mimeType,
      bytes: only.data.byteLength,
      ...(only.uri !== undefined ? { uri: only.uri } : {}),
      ...keepStructured,
    };
  }
  const attachments = binaries.length > 0 ? { attachments: binaries.map(attachmentOf) } : {};
  if (texts.length === 0 && structured !== undefined) return { ok: true, result: structured, ...attachments };
  return { ok: true, result: texts.join('\n'), ...keepStructured, ...attachments };
}
