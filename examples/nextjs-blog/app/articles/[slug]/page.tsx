import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { publicUrl, site, siteTitle } from '../../../lib/site';
import { articleUrl, imageUrl } from '../../../lib/site-feeds.mjs';

// Rendered on the first visit and cached (no article is rendered at build time), until the
// webhook calls revalidatePath for it, or 60 s have passed. The 60 s (with expireTime in
// next.config.ts) is what Next writes in Cache-Control, `s-maxage=60, stale-while-revalidate=60`:
// revalidatePath clears only Next's own cache, so a CDN in front must let go of a trashed page
// by itself, within two minutes (without it Next wrote s-maxage=31536000: a year). Which status a slug gets (200, 301, 404, 410) is decided
// per request by proxy.ts before this page runs: Next's redirect() is a 307 and it has no 410.
export const dynamicParams = true;
export const revalidate = 60;
export function generateStaticParams(): { slug: string }[] {
  return [];
}

type Props = { params: Promise<{ slug: string }> };

async function load(slug: string) {
  const answer = await (await site()).answer(slug);
  return answer.status === 200 ? answer.article : undefined;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const article = await load((await params).slug);
  if (!article) return { title: 'No article here', robots: { index: false } };
  const canonical = articleUrl(publicUrl(), article.slug);
  const image = imageUrl(article.featured_image_url);
  return {
    title: article.title,
    description: article.meta_description,
    alternates: { canonical },
    openGraph: {
      type: 'article',
      title: article.title,
      description: article.meta_description,
      url: canonical,
      images: image ? [image] : undefined,
      publishedTime: article.public_at ?? undefined,
      modifiedTime: article.lastmod ?? undefined,
    },
  };
}

export default async function ArticlePage({ params }: Props) {
  const article = await load((await params).slug);
  if (!article) notFound();
  const image = imageUrl(article.featured_image_url);
  return (
    <main>
      <p>
        <Link href="/">{siteTitle}</Link>
      </p>
      <article>
        <h1>{article.title}</h1>
        <p className="dates">
          {article.public_at && (
            <>
              Published <time dateTime={article.public_at}>{article.public_at.slice(0, 10)}</time>
            </>
          )}
          {article.lastmod && (
            <>
              {' '}
              · updated <time dateTime={article.lastmod}>{article.lastmod.slice(0, 10)}</time>
            </>
          )}
        </p>
        {/* biome-ignore lint/performance/noImgElement: the image is on the service's CDN, a host next/image would have to be configured for. */}
        {image && <img className="featured" src={image} alt={article.title} />}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized when stored (sanitizeHtml of webhook-cms-receiver/publish), no scripts or handlers left. */}
        <div className="content" dangerouslySetInnerHTML={{ __html: article.html }} />
      </article>
    </main>
  );
}
