import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// Slugs become file names: only this alphabet can never climb out of the content folder.
const SAFE_SLUG = /^[a-z0-9-]{1,200}$/;

/**
 * True when `slug` is safe to use as a file name.
 *
 * @example
 * isSafeSlug('ten-seo-tips'); // true
 */
export function isSafeSlug(slug) {
  return typeof slug === 'string' && SAFE_SLUG.test(slug);
}

/**
 * Returns the slug when it is safe to use as a file name, else throws.
 *
 * @example
 * safeSlug('ten-seo-tips'); // 'ten-seo-tips'
 * safeSlug('../etc/passwd'); // throws
 */
export function safeSlug(slug) {
  if (!isSafeSlug(slug)) {
    throw new Error(
      `Refusing slug ${JSON.stringify(slug)}: only a-z, 0-9 and "-" (1 to 200 characters) are allowed in file names. Fix the slug in the dashboard; the service retries.`,
    );
  }
  return slug;
}

/**
 * YAML front matter for an article. Values are written as JSON, which every YAML parser
 * reads, so quotes, colons and newlines in a title cannot break out of their field.
 *
 * @example
 * frontMatter({ title: 'Hello', slug: 'hello', tags: ['a'] });
 */
export function frontMatter(article) {
  const fields = [
    'title',
    'slug',
    'status',
    'tags',
    'meta_description',
    'published_at',
    'scheduled_at',
    'featured_image_url',
  ];
  const lines = fields.map((field) => `${field}: ${JSON.stringify(article[field] ?? null)}`);
  return `---\n${lines.join('\n')}\n---\n`;
}

/**
 * Writes `<slug>.md` (front matter + Markdown) and `<slug>.html` into `dir`. Each file is
 * written beside its final name and renamed, so readers never see half an article.
 *
 * @example
 * await writeArticle('./content', event.article);
 */
export async function writeArticle(dir, article) {
  const slug = safeSlug(article.slug);
  await mkdir(dir, { recursive: true });
  await replaceFile(join(dir, `${slug}.md`), frontMatter(article) + article.content_markdown);
  await replaceFile(join(dir, `${slug}.html`), article.content_html);
  return slug;
}

/**
 * Deletes both files of an article; deleting what is already gone is fine (retries).
 *
 * @example
 * await removeArticle('./content', 'ten-seo-tips');
 */
export async function removeArticle(dir, slug) {
  const safe = safeSlug(slug);
  await rm(join(dir, `${safe}.md`), { force: true });
  await rm(join(dir, `${safe}.html`), { force: true });
}

async function replaceFile(path, text) {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, 'utf8');
  await rename(temporary, path);
}
