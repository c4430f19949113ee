/**
 * Maps character offsets of a text fed chunk by chunk to 1-based line numbers, keeping only the
 * current and the previous chunk (bounded memory). Offsets are asked in increasing order, as a
 * streaming parser reports them; an offset before the previous chunk answers that chunk's first line.
 */
export class LineCounter {
  private prev = { text: '', base: 0, line: 1 };
  private cur = { text: '', base: 0, line: 1 };
  private cursor = { offset: 0, line: 1 };

  /** Records the next chunk (call before handing it to the parser). */
  push(chunk: string): void {
    const line = this.cur.line + count(this.cur.text, 0, this.cur.text.length);
    this.prev = this.cur;
    this.cur = { text: chunk, base: this.prev.base + this.prev.text.length, line };
  }

  lineAt(offset: number): number {
    const part = offset >= this.cur.base ? this.cur : offset >= this.prev.base ? this.prev : undefined;
    if (!part) return this.prev.line;
    if (this.cursor.offset < part.base || this.cursor.offset > offset)
      this.cursor = { offset: part.base, line: part.line };
    const from = this.cursor.offset - part.base;
    const to = Math.min(offset - part.base, part.text.length);
    this.cursor = { offset: part.base + to, line: this.cursor.line + count(part.text, from, to) };
    return this.cursor.line;
  }
}

function count(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
