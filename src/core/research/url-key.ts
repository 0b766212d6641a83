const UNRESERVED = /%(2[DdEe]|3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|5[Ff]|7[Ee])/g;

/**
 * A URL as far as "the same page" goes, so a denied URL cannot come back spelled differently: the WHATWG parse
 * (host case, default port, dot segments), no fragment, no empty query, and percent-encoded unreserved characters
 * decoded. The raw text when it is no URL at all.
 */
export function urlKey(raw: string | URL): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return String(raw);
  }
  url.hash = '';
  if (url.search === '') url.search = '';
  url.pathname = url.pathname.replace(UNRESERVED, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
  return url.href;
}
