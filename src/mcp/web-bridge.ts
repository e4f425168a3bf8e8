import type { HttpRequest, Reply } from '../api/http-types.js';

/**
 * The SDK's transport speaks web-standard Request/Response; the front speaks HttpRequest/Reply.
 * These two functions are the whole adapter between them (no second HTTP server).
 */
export function toWebRequest(req: HttpRequest, origin: string): Request {
  const query = req.query.toString();
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) headers.set(name, value);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.body.length > 0;
  return new Request(`${origin}${req.path}${query ? `?${query}` : ''}`, {
    method: req.method,
    headers,
    body: hasBody ? new Uint8Array(req.body) : undefined,
  });
}

export async function toReply(res: Response): Promise<Reply> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'content-type' && name !== 'content-length') headers[name] = value;
  });
  const text = await res.text();
  if (text === '') return { status: res.status, headers };
  return { status: res.status, headers, raw: { contentType: res.headers.get('content-type') ?? 'application/json', text } };
}
