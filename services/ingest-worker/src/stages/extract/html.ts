import { Readability } from '@mozilla/readability';
import { DOMParser } from 'linkedom';
import { htmlToMarkdown } from './markdown';
import type { Extracted } from './types';

export const HTML_MODEL = 'readability@0.6+turndown@7';

/**
 * HTML to markdown: Readability picks the article (dropping navigation, ads, footers), Turndown
 * writes it as markdown. A page Readability finds no article in falls back to its whole body.
 */
export function extractHtml(html: string, url: string | null): Extracted {
  const document = new DOMParser().parseFromString(html, 'text/html');
  const pageTitle = document.querySelector('title')?.textContent?.trim() || null;
  const notes: string[] = [];
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
      charThreshold: 100,
    }).parse();
  } catch (err) {
    notes.push(`readability failed (${(err as Error).message}); whole body converted`);
  }
  const content =
    article?.content ?? new DOMParser().parseFromString(html, 'text/html').querySelector('body')?.innerHTML ?? '';
  if (!article) notes.push('no article found; whole body converted');
  const markdown = htmlToMarkdown(content);
  return {
    markdown,
    title: article?.title?.trim() || pageTitle,
    format: 'html',
    metadata: {
      ...(url ? { url } : {}),
      ...(article?.byline ? { byline: article.byline } : {}),
      ...(article?.siteName ? { site_name: article.siteName } : {}),
      ...(article?.excerpt ? { excerpt: article.excerpt } : {}),
      ...(article?.publishedTime ? { published_time: article.publishedTime } : {}),
      ...(article?.lang ? { lang: article.lang } : {}),
    },
    notes,
  };
}
