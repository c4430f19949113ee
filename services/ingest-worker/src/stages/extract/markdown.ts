import TurndownService from 'turndown';

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.remove(['script', 'style', 'noscript', 'iframe']);

/** HTML fragment to markdown (ATX headings, fenced code, `-` bullets); scripts and styles dropped. */
export const htmlToMarkdown = (html: string): string => turndown.turndown(html).trim();
