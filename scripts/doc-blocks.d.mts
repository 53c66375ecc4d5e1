/** A fenced code block of a doc. */
export interface CodeBlock {
  /** The info string's language, lower-case. */
  lang: string;
  /** The rest of the info string. */
  flags: string[];
  /** The 1-based line of the first code line. */
  line: number;
  /** The code, un-indented like its fence. */
  code: string;
  /** The reason its `<!-- fragment: … -->` marker gives; undefined when unmarked. */
  fragment: string | undefined;
}

/** The Markdown files whose code blocks are checked, relative to the repository. */
export function docFiles(root: string): string[];
/** Languages a block is run in, to the extension its module gets. */
export const RUNNABLE: Record<string, 'ts' | 'mjs'>;
/** The fenced code blocks of a Markdown text. */
export function codeBlocks(text: string): CodeBlock[];
/** Every block of every doc, with the doc it is in. */
export function allBlocks(root: string): (CodeBlock & { doc: string })[];
