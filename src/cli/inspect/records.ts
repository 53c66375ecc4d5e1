import { readFileSync, statSync } from 'node:fs';
import { readRecord, type StoredDelivery } from '../../diagnose/index.js';

/**
 * Follows the inspector's JSON-lines file: the lines so far, then each new one as it is
 * appended. Polls the size, which works the same on every file system; a file that shrank was
 * trimmed by the recorder, and is then read again from the start.
 */
export class RecordFile {
  private offset = 0;
  private partial = '';

  constructor(readonly path: string) {}

  /** Every complete line in the file now, and remembers where the next read starts. */
  all(): string[] {
    this.offset = 0;
    this.partial = '';
    return this.newLines().lines;
  }

  /** Lines appended since the last call; `reset` when the file was trimmed meanwhile. */
  newLines(): { lines: string[]; reset: boolean } {
    const size = statSync(this.path, { throwIfNoEntry: false })?.size ?? 0;
    let reset = false;
    if (size < this.offset) {
      this.offset = 0;
      this.partial = '';
      reset = true;
    }
    if (size === this.offset) return { lines: [], reset };
    const text = this.partial + readFileSync(this.path).subarray(this.offset, size).toString('utf8');
    this.offset = size;
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    return { lines: parts.filter((line) => line.trim() !== ''), reset };
  }

  /** One record by its id, or undefined. */
  find(id: string): StoredDelivery | undefined {
    const text = statSync(this.path, { throwIfNoEntry: false }) ? readFileSync(this.path, 'utf8') : '';
    for (const line of text.split('\n')) {
      if (!line.includes(id)) continue;
      try {
        const record = readRecord(line);
        if (record.id === id) return record;
      } catch {
        // A line cut by a crash mid-write (or not a capture line at all) is skipped, not fatal.
      }
    }
    return undefined;
  }
}
