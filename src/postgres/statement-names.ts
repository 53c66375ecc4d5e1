/**
 * The name a statement is prepared under: `wcr_` and 16 hex digits hashed from its text, so
 * the same text gets the same name on every connection and in every process, and two texts
 * (two steps, or two stores on other tables) practically never share one. `pg` refuses a
 * name it already prepared with another text, rather than running the wrong statement.
 * No `node:crypto`: the entry also runs where only Web APIs exist.
 */
export function statementName(text: string): string {
  // FNV-1a over the UTF-16 code units, twice with different offset bases: 64 bits.
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x01000193);
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return `wcr_${hex(a)}${hex(b)}`;
}
