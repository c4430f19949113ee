import { contentTypeOfUrl } from '@kg/sdk/capture-kinds';
import type { CreateCapture } from './api';

/** What the extension reads of a page (in the page, by `readPage`). */
export interface PageRead {
  url: string;
  title: string;
  selection: string;
  /** The document as the person sees it (after scripts ran, behind their sign-ins). */
  html: string;
  /** The document's MIME type (`application/pdf` in a PDF viewer, `image/png` for an image). */
  mime: string;
  /** `og:type` when the page declares one (`video.movie`, `article`). */
  ogType: string;
}

/** The API's limits (CreateCaptureInput): what is longer is cut. */
export const LIMITS = { title: 500, selection: 100_000, html: 5_000_000, url: 2048 } as const;

/**
 * Runs in the page (browser.scripting.executeScript serialises it: it may use nothing from
 * outside its own body). Reads the selection, the document and its declared type.
 */
export function readPage(limits: typeof LIMITS): PageRead {
  const meta = document.querySelector('meta[property="og:type"]');
  return {
    url: location.href,
    title: document.title.slice(0, limits.title),
    selection: String(getSelection() ?? '').slice(0, limits.selection),
    html: document.documentElement.outerHTML.slice(0, limits.html),
    mime: document.contentType,
    ogType: meta?.getAttribute('content') ?? '',
  };
}

type ContentType = CreateCapture['content_type'];

/** The capture's content type: from the document's type first, then the address and og:type. */
export function classify(url: string, mime = '', ogType = ''): ContentType {
  if (mime === 'application/pdf' || /\.pdf(?:$|[?#])/i.test(url)) return 'pdf';
  if (mime.startsWith('image/')) return 'image';
  const byHost = contentTypeOfUrl(url);
  if (byHost !== 'article') return byHost;
  if (/^video(\.|$)/.test(ogType)) return 'video';
  return 'article';
}

/** Only web pages are captured: not the browser's own pages, files or extension pages. */
export const capturable = (url: string | undefined): url is string =>
  !!url && /^https?:\/\//i.test(url) && url.length <= LIMITS.url;

const clean = (s: string, max: number) => s.replace(/\s+/g, ' ').trim().slice(0, max);

/** The whole page: its address, title, what is selected, and its HTML (the pipeline reads it). */
export function pageCapture(page: PageRead, why?: string): CreateCapture {
  const title = clean(page.title, LIMITS.title) || page.url.slice(0, LIMITS.title);
  const type = classify(page.url, page.mime, page.ogType);
  // An image or a PDF is read from its address by the pipeline: the viewer's HTML is not the document.
  const html = type === 'pdf' || type === 'image' ? '' : page.html;
  return {
    title,
    url: page.url,
    content_type: type,
    source: 'browser-extension',
    ...(page.selection.trim() ? { selected_text: page.selection.slice(0, LIMITS.selection) } : {}),
    ...(html ? { raw_content: html } : {}),
    ...(why?.trim() ? { why: why.trim().slice(0, 5000) } : {}),
  };
}

/** A selection (context menu "Save selection"): the quote and where it is from. */
export function selectionCapture(url: string, title: string, selection: string): CreateCapture {
  return {
    title: clean(title, LIMITS.title) || url.slice(0, LIMITS.title),
    url,
    content_type: classify(url),
    source: 'browser-extension',
    selected_text: selection.slice(0, LIMITS.selection),
  };
}

/** A link (context menu "Save link"): the pipeline fetches it. */
export function linkCapture(linkUrl: string, text?: string): CreateCapture {
  return {
    title: clean(text ?? '', LIMITS.title) || linkUrl.slice(0, LIMITS.title),
    url: linkUrl,
    content_type: classify(linkUrl),
    source: 'browser-extension',
  };
}
