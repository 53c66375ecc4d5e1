/** The URL when `text` is an absolute http(s) address, else undefined: callers word their own error. */
export function httpUrl(text: string): URL | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    return undefined;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
}
