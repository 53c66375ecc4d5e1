import type { InspectedDelivery } from 'webhook-cms-receiver';
import { bodyFields, diagnoseDelivery, type InspectorRecord } from '../diagnose/index.js';
import { loadBuiltin } from '../internal/builtin.js';

export type { InspectorRecord } from '../diagnose/index.js';

/** Options of {@link createInspector}. */
export interface InspectorOptions {
  /**
   * The JSON-lines file, written 0600 (its folder, when created, 0700). Default
   * `.webhook-inspector/deliveries.jsonl` under the working directory.
   */
  file?: string;
  /** When the file grows past this, its older half is dropped. Default 5 MiB. */
  maxFileBytes?: number;
  /** Bodies longer than this are cut, and marked so. Default 64 KiB. */
  maxBodyBytes?: number;
  /**
   * The receiver's token, to explain each refused delivery with `diagnoseDelivery` (which
   * transformation of the body the signature covers, the clock offset, …). Used to test
   * signatures only; never written to the file. Without it, refusals are recorded undiagnosed.
   */
  token?: string;
}

/** The slice of node:fs the inspector uses, declared so the package needs no Node types. */
interface NodeFs {
  mkdirSync(path: string, options: { recursive: true; mode: number }): unknown;
  appendFileSync(path: string, text: string, options: { mode: number }): void;
  chmodSync(path: string, mode: number): void;
  statSync(path: string, options: { throwIfNoEntry: false }): { size: number } | undefined;
  readFileSync(path: string, encoding: 'utf8'): string;
  writeFileSync(path: string, text: string, options: { mode: number }): void;
}

/** The records hold article bodies and request headers: readable by their owner only. */
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

/** The default file, also in every starter's `.gitignore`. */
export const DEFAULT_INSPECTOR_FILE = '.webhook-inspector/deliveries.jsonl';

/**
 * Records every delivery a receiver sees into a bounded JSON-lines file, for
 * `npx webhook-cms-receiver inspect` to show: time, headers (`Authorization` redacted), the
 * body (capped), the verdict with its internal reason, the diagnosis of a refusal, the
 * handler's outcome and duration, and the answer. **Development only**: the file holds
 * article bodies; leave it out of production receivers.
 *
 * @example
 * ```ts
 * import { createInspector } from 'webhook-cms-receiver/testing';
 * const token = process.env.WEBHOOK_TOKEN!;
 * const receiver = createReceiver({
 *   token,
 *   inspect: process.env.NODE_ENV === 'development' ? createInspector({ token }) : undefined,
 * });
 * ```
 */
export function createInspector(options: InspectorOptions = {}): (delivery: InspectedDelivery) => void {
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token === '')) {
    throw new TypeError("createInspector: token must be the receiver's token (a non-empty string), or left out.");
  }
  const fs = loadBuiltin<NodeFs>('node:fs');
  if (!fs) throw new Error('createInspector writes a file, so it needs node:fs (Node, Bun, Deno, or nodejs_compat).');
  const file = options.file ?? DEFAULT_INSPECTOR_FILE;
  const maxFileBytes = options.maxFileBytes ?? 5 * 1024 * 1024;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const folder = directoryOf(file);
  fs.mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
  // A folder and file from an earlier version (0755, 0644) are the inspector's own: tightened too.
  if (folder.endsWith(DEFAULT_INSPECTOR_FILE.slice(0, DEFAULT_INSPECTOR_FILE.indexOf('/'))))
    tighten(fs, folder, FOLDER_MODE);
  if (fs.statSync(file, { throwIfNoEntry: false })) tighten(fs, file, FILE_MODE);
  const write = (record: InspectorRecord): void => {
    try {
      fs.appendFileSync(file, `${JSON.stringify(record)}\n`, { mode: FILE_MODE });
      if ((fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0) > maxFileBytes) keepNewerHalf(fs, file);
    } catch (error) {
      console.error('webhook-cms-receiver: the inspector could not record a delivery:', error);
    }
  };
  return (delivery) => {
    const record = recordOf(delivery, maxBodyBytes);
    const body = delivery.body;
    const refused = delivery.answer.status >= 400 && delivery.answer.status < 500;
    if (!refused || !options.token || body === undefined || record.bodyTruncated) return write(record);
    // The diagnosis is asynchronous; the line is written once it is in, so it never blocks the answer.
    void diagnosed(options.token, delivery, body).then((diagnosis) => write({ ...record, diagnosis }));
  };
}

function recordOf(delivery: InspectedDelivery, maxBodyBytes: number): InspectorRecord {
  const bytes = typeof delivery.body === 'string' ? new TextEncoder().encode(delivery.body) : delivery.body;
  const record: InspectorRecord = {
    id: globalThis.crypto.randomUUID(),
    receivedAt: new Date(delivery.receivedAt).toISOString(),
    durationMs: delivery.durationMs,
    method: delivery.method,
    headers: delivery.headers,
    status: delivery.answer.status,
    answer: delivery.answer.body,
    ...(delivery.event ? { event: delivery.event } : {}),
    ...(delivery.error ? { error: delivery.error } : {}),
  };
  if (bytes) {
    const kept = bytes.byteLength > maxBodyBytes ? bytes.subarray(0, maxBodyBytes) : bytes;
    if (kept !== bytes) record.bodyTruncated = true;
    Object.assign(record, bodyFields(kept));
  }
  return record;
}

async function diagnosed(token: string, delivery: InspectedDelivery, body: Uint8Array | string): Promise<unknown> {
  // The record keeps Authorization redacted. Where the receiver matched the token, the
  // diagnosis is given the token back so it can look further (signature, clock, body).
  const tokenMatched = delivery.error?.code !== 'invalid_token';
  const headers = { ...delivery.headers };
  if (tokenMatched) headers.authorization = `Bearer ${token}`;
  try {
    const diagnosis = await diagnoseDelivery({ headers, body, token, now: delivery.receivedAt });
    return JSON.parse(JSON.stringify(diagnosis).split(token).join('[redacted]'));
  } catch (error) {
    return { error: `the diagnosis failed: ${String(error)}` };
  }
}

function directoryOf(file: string): string {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return slash > 0 ? file.slice(0, slash) : '.';
}

/** Narrows who may read a path; a warning, not a crash, when the file system will not. */
function tighten(fs: NodeFs, path: string, mode: number): void {
  try {
    fs.chmodSync(path, mode);
  } catch (error) {
    console.warn(`webhook-cms-receiver: the inspector could not restrict ${path} to its owner:`, error);
  }
}

/** Drops the older half of the lines: the file stays bounded and the newest deliveries stay. */
function keepNewerHalf(fs: NodeFs, file: string): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  fs.writeFileSync(file, `${lines.slice(Math.floor(lines.length / 2)).join('\n')}\n`, { mode: FILE_MODE });
}
