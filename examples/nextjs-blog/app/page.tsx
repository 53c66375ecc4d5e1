import Link from 'next/link';
import { articlePath, site, siteTitle } from '../lib/site';

// Cached, and marked stale by revalidatePath('/') on every delivery; the minute bounds how late
// an article scheduled for later appears here (its own page and the sitemap are on time).
export const revalidate = 60;

export default async function Home() {
  const articles = await (await site()).publicArticles();
  return (
    <main>
      <h1>{siteTitle}</h1>
      <ul>
        {articles.map((article) => (
          <li key={article.id}>
            <Link href={articlePath(article.slug)}>{article.title}</Link>
          </li>
        ))}
      </ul>
      <p>
        <a href="/feed.xml">RSS</a>
      </p>
    </main>
  );
}
