/**
 * The parts of a Node `IncomingMessage` (or a framework's subclass of it) the Node adapters
 * read, described without Node's types so the package needs none.
 */
export interface NodeRequest extends AsyncIterable<Uint8Array | string> {
  method?: string | undefined;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Header names and values as received, in order. */
  rawHeaders?: readonly string[];
  /** Every copy of every header (Node 18.3+): a second `Authorization` must not go unseen. */
  headersDistinct?: Readonly<Record<string, readonly string[] | undefined>>;
  /** The raw bytes a host kept: Google Cloud Functions, Firebase, NestJS `rawBody: true`. */
  rawBody?: unknown;
  /** What a body parser left, when one ran. */
  body?: unknown;
  readableEnded?: boolean;
  httpVersionMajor?: number;
  pause?(): unknown;
  resume?(): unknown;
  on?(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  once?(event: 'end', listener: () => void): unknown;
  removeListener?(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  socket?: NodeSocket | null;
}

/** The parts of a `net.Socket` used to close a refused connection gently. */
export interface NodeSocket {
  destroy(): unknown;
  end?(): unknown;
  pause?(): unknown;
  destroySoon?: () => void;
}

/** The parts of a Node `ServerResponse` the Node adapters write. */
export interface NodeResponse {
  headersSent?: boolean;
  writableEnded?: boolean;
  destroyed?: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  setHeader?(name: string, value: string): unknown;
  end(text: string): unknown;
  once(event: 'finish', listener: () => void): unknown;
  socket?: NodeSocket | null;
}
