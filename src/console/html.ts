/** Markup already escaped: interpolating it into {@link html} adds it as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

function part(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(part).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Markup from a template: every interpolated value is escaped unless it is {@link Html}, so text from a model, a tool
 * or a user's message can only ever show as text.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += part(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
}

/** A path segment of a deep link, encoded (agent ids may hold `/`-free punctuation; workflow ids hold `/`). */
export function segment(value: string | number): string {
  return encodeURIComponent(String(value));
}

// Inline, so the console works offline and loads nothing from anywhere else (the CSP forbids it too).
const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:.6em 1.2em;display:flex;gap:1.2em;align-items:center}
header a{color:#cfe0ff;text-decoration:none}header strong{margin-right:1em}
main{padding:1em 1.4em;max-width:1200px}
h1{font-size:1.35em;margin:.3em 0 .6em}h2{font-size:1.1em;margin:1.4em 0 .5em}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #e3e6ea;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #e3e6ea;padding:.6em;margin:.3em 0}
.section{background:#fff;border:1px solid #e3e6ea;border-radius:4px;padding:.5em .8em;margin:.6em 0}
.section pre{border:0;padding:0;margin:0}
.muted{color:#6b7480}.add{background:#e6f6e9}.del{background:#fbe9e9;text-decoration:line-through}
.badge{display:inline-block;padding:0 .45em;border-radius:3px;background:#e3e6ea;font-size:.9em}
.bad{background:#fbe0e0}.good{background:#dff3e3}.warn{background:#fff1cc}
form.inline{display:inline}textarea{width:100%;min-height:4em;font:inherit}
input[type=text]{font:inherit;padding:.2em}button{font:inherit;padding:.2em .8em;cursor:pointer}
nav.pager a{margin-right:1em}
`;

/** A whole page: header links, title and body. */
export function layout(title: string, body: Html): string {
  const [open, close] = layoutParts(title);
  return `${open}${body.text}${close}`;
}

/** A page's markup before its body and after it, for a page sent in pieces. */
export function layoutParts(title: string): [string, string] {
  return [
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · scratchpad console</title><style>${STYLE}</style></head>
<body><header><strong>scratchpad console</strong><a href="/">Agents</a><a href="/approvals">Approvals</a>
<a href="/research">Research</a></header>
<main>`,
    `</main></body></html>`,
  ];
}

/** A form that posts to `action` with the console's CSRF token. */
export function form(action: string, csrf: string, fields: Html, button: string, className = ''): Html {
  return html`<form method="post" action="${action}" class="${className}">
    <input type="hidden" name="csrf" value="${csrf}" />${fields}<button type="submit">${button}</button>
  </form>`;
}
